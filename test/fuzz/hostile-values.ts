// Values a broken or hostile client sends, and mutations that plant them anywhere in a valid payload.
import fc from 'fast-check';

/** `depth` nested arrays around a value: parsers and validators that recurse meet their limits. */
export function nested(depth: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const PROTO_OBJECT = JSON.parse(
  '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}',
) as object;

const SPECIAL: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  5e-324,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 63,
  '',
  ' ',
  '\t\n',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '0x1A',
  '１２３',
  '٣',
  '2019-02-30',
  '2019-13-01',
  '0000-00-00',
  '2019-10-01T25:61:61Z',
  '+275760-09-13',
  '9999-12-31T23:59:59.999999Z',
  '\u0000',
  'nul\u0000inside',
  '\ud800',
  'a\udfffb',
  '\u202eevil',
  '\ufeffbom',
  '🧨'.repeat(500),
  'x'.repeat(70_000),
  "'; DROP TABLE notes; --",
  '$1',
  '\\',
  '../../etc/passwd',
  '%2e%2e/%2e%2e',
  [],
  {},
  [null],
  nested(200),
  nested(1_000),
  PROTO_OBJECT,
  Array.from({ length: 5_000 }, (_, i) => i),
];

/** Short text full of what breaks storage and display: NUL, lone surrogates, bidi controls, BOMs. */
export const hostileText: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom(
    '\u0000',
    '\u0001',
    '\u001f',
    '\u007f',
    '\ud800',
    '\udfff',
    '\u202e',
    '\ufeff',
    '\u2028',
    'é',
    '😀',
    '\\',
    "'",
    '"',
    '%00',
    'a',
  ),
  minLength: 1,
  maxLength: 6,
});

/** Any JSON value a client might put where something else belongs. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 2, arbitrary: hostileText },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: -(2 ** 53), max: 2 ** 53 }) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

type Path = (string | number)[];

/** Every path inside a JSON value (the root included), in a stable order. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  }
  return out;
}

export interface Mutation {
  /** Which path of the payload (modulo the number of paths). */
  at: number;
  /** `append`: hostile text added to a string where one is expected (structure stays valid). */
  op: 'replace' | 'delete' | 'null' | 'addKey' | 'stringify' | 'wrap' | 'append';
  value: unknown;
  text: string;
  key: string;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('replace', 'replace', 'append', 'append', 'delete', 'null', 'addKey', 'stringify', 'wrap'),
  value: hostileValue,
  text: hostileText,
  key: fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', ''),
    fc.string({ maxLength: 8 }),
    hostileText,
  ),
});

/** Applies mutations to a deep copy of `payload` (JSON round trip, so `__proto__` stays an own key). */
export function mutate(payload: unknown, mutations: Mutation[]): unknown {
  let root = JSON.parse(JSON.stringify(payload)) as unknown;
  for (const m of mutations) {
    const paths = pathsOf(root);
    const path = paths[m.at % paths.length]!;
    root = applyAt(root, path, m);
  }
  return root;
}

function applyAt(root: unknown, path: Path, m: Mutation): unknown {
  if (path.length === 0) {
    if (m.op === 'replace' || m.op === 'null') return m.op === 'null' ? null : m.value;
    if (m.op === 'wrap') return [root];
    if (m.op === 'addKey' && root !== null && typeof root === 'object' && !Array.isArray(root)) {
      Object.defineProperty(root, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
    }
    return root;
  }
  const parent = path.slice(0, -1).reduce<any>((node, k) => node[k], root); // eslint-disable-line @typescript-eslint/no-explicit-any
  const last = path.at(-1)!;
  const current = parent[last];
  const set = (v: unknown) =>
    Object.defineProperty(parent, last, { value: v, enumerable: true, writable: true, configurable: true });
  switch (m.op) {
    case 'replace':
      set(m.value);
      break;
    case 'null':
      set(null);
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 'stringify':
      set(typeof current === 'string' ? current : JSON.stringify(current));
      break;
    case 'wrap':
      set([current]);
      break;
    case 'append':
      set(typeof current === 'string' ? current + m.text : m.text);
      break;
    case 'addKey':
      if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
        Object.defineProperty(current, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      }
      break;
  }
  return root;
}
