// The one command-line framework of the repository, used by the client (`data-import-client`) and the
// platform team's `admin`: how a command declares its options (name, type, default and help text in one
// table), from which node's util.parseArgs parses the command line, values are bounded and converted,
// and the help lines are written. An option the command does not declare is a usage error naming the
// command. Nothing else imports parseArgs (test/architecture/one-command-framework.test.ts).
import { parseArgs } from 'node:util';

/** The command line is wrong: the program prints it with the command's usage and exits 2. */
export class UsageError extends Error {}

type OptionSpec =
  | { type: 'boolean'; help: string; short?: string }
  | {
      type: 'string';
      short?: string;
      /** The option may be given again and again: its values in order. */
      multiple?: true;
      /** What the value is called in the help text: N, FILE, SECONDS. */
      arg: string;
      help: string;
      default?: string | number;
      /** A whole number from min to max. */
      int?: readonly [number, number];
      /** true|false (or 1|0). */
      flag?: true;
    };

export type OptionTable = Record<string, OptionSpec>;

type ValueOf<S> = S extends { type: 'boolean' }
  ? boolean | undefined
  : S extends { multiple: true }
    ? string[] | undefined
    : S extends { flag: true }
      ? boolean | undefined
      : S extends { int: readonly [number, number] }
        ? S extends { default: number }
          ? number
          : number | undefined
        : S extends { default: string }
          ? string
          : string | undefined;

/** The values of a table's options as the command reads them: defaults applied, numbers as numbers. */
type OptionValues<T extends OptionTable> = { -readonly [K in keyof T]: ValueOf<T[K]> };

export interface ParsedCommand<T extends OptionTable> {
  positionals: string[];
  values: OptionValues<T>;
}

/**
 * Parses `args` (everything after the command's name) against the command's own table; `program` names
 * the program in the error that points at the command's help.
 */
export function parseOptions<T extends OptionTable>(
  program: string,
  command: string,
  table: T,
  args: string[],
): ParsedCommand<T> {
  refuseForeignOptions(program, command, table, args);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: parseArgsTable(table), allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${command}: ${(err as Error).message.slice(0, 300)}`);
  }
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) values[name] = convert(name, spec, parsed.values[name]);
  return { positionals: parsed.positionals, values: values as OptionValues<T> };
}

/** True when `args` ask for help (--help or -h), whatever else they hold. */
export function asksForHelp(args: string[]): boolean {
  return tokensOf(HELP, args).some((t) => t.kind === 'option' && t.name === 'help');
}

export const HELP = { help: { type: 'boolean', short: 'h', help: 'show this help' } } as const satisfies OptionTable;

/** The table as parseArgs takes it: only type and short name; defaults are applied by `convert`. */
function parseArgsTable(table: OptionTable) {
  return Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [
      name,
      {
        type: spec.type,
        ...(spec.short ? { short: spec.short } : {}),
        ...(spec.type === 'string' && spec.multiple ? { multiple: true } : {}),
      },
    ]),
  );
}

function tokensOf(table: OptionTable, args: string[]) {
  return parseArgs({ args, options: parseArgsTable(table), allowPositionals: true, strict: false, tokens: true })
    .tokens;
}

/**
 * The first word of `argv` that is neither an option nor an option's value of `table` (options may come
 * before it), and the words without it; undefined when there is none.
 */
export function firstWord(table: OptionTable, argv: string[]): { word: string; rest: string[] } | undefined {
  const first = tokensOf(table, argv).find((t) => t.kind === 'positional');
  return first && { word: first.value, rest: argv.filter((_, i) => i !== first.index) };
}

function refuseForeignOptions(program: string, command: string, table: OptionTable, args: string[]): void {
  for (const token of tokensOf(table, args)) {
    if (token.kind === 'option' && !(token.name in table)) {
      throw new UsageError(
        `${command} takes no option ${token.rawName.slice(0, 60)} (see ${program} ${command} --help)`,
      );
    }
  }
}

function convert(name: string, spec: OptionSpec, raw: unknown): unknown {
  if (spec.type === 'boolean') return raw === true ? true : undefined;
  if (spec.multiple) return Array.isArray(raw) ? raw.map(String) : undefined;
  const value = typeof raw === 'string' ? raw : spec.default === undefined ? undefined : String(spec.default);
  if (value === undefined) return undefined;
  if (spec.int) return wholeNumber(value, name, spec.int);
  if (spec.flag) return trueOrFalse(value, name);
  return value;
}

function wholeNumber(value: string, name: string, [min, max]: readonly [number, number]): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

function trueOrFalse(value: string, name: string): boolean {
  if (/^(true|1)$/i.test(value)) return true;
  if (/^(false|0)$/i.test(value)) return false;
  throw new UsageError(`--${name} must be true or false`);
}

const MAX_NAME_COLUMN = 28;

/** One help line per option: `--batch N  requests of N items (default 100; 1 to 1000)`. */
export function optionLines(table: OptionTable): string[] {
  const rows = Object.entries(table).map(([name, spec]) => {
    const left = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` ${spec.arg}` : ''}`;
    const notes = [
      ...(spec.type === 'string' && spec.default !== undefined ? [`default ${spec.default}`] : []),
      ...(spec.type === 'string' && spec.int ? [`${spec.int[0]} to ${spec.int[1]}`] : []),
    ];
    return { left, right: spec.help + (notes.length > 0 ? ` (${notes.join('; ')})` : '') };
  });
  // A long option name puts its help on the next line rather than pushing every help to the right.
  const width = Math.min(MAX_NAME_COLUMN, Math.max(0, ...rows.map((r) => r.left.length))) + 2;
  return rows.map((r) =>
    r.left.length + 2 > width ? `  ${r.left}\n  ${' '.repeat(width)}${r.right}` : `  ${r.left.padEnd(width)}${r.right}`,
  );
}
