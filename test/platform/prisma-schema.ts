// Reads prisma/schema.prisma into the facts the schema test compares with the migrated database:
// models, their scalar fields (type, optional, default, native type, column name), keys, indexes and
// relations, and enums. Covers the subset of the Prisma schema language this project uses; a line it
// does not understand fails loudly rather than being skipped.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SCALARS = new Set(['String', 'Int', 'BigInt', 'Boolean', 'DateTime', 'Decimal', 'Json', 'Float']);

export interface ScalarField {
  name: string;
  column: string;
  type: string;
  isEnum: boolean;
  optional: boolean;
  /** The text inside @default(…), if any. */
  default?: string;
  updatedAt: boolean;
  isId: boolean;
  unique: boolean;
  /** e.g. { name: 'Timestamptz', args: ['3'] } for @db.Timestamptz(3). */
  native?: { name: string; args: string[] };
}

export interface Relation {
  model: string;
  fields: string[];
  references: string[];
  onDelete?: string;
}

export interface Model {
  name: string;
  table: string;
  scalars: ScalarField[];
  relations: Relation[];
  primaryKey: string[];
  uniques: string[][];
  indexes: string[][];
}

export interface PrismaSchema {
  models: Model[];
  enums: Map<string, string[]>;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const attr = (attrs: string, name: string) => new RegExp(`@${name}\\(((?:[^()]|\\([^()]*\\))*)\\)`).exec(attrs)?.[1];

export function readPrismaSchema(file = path.join(__dirname, '../../prisma/schema.prisma')): PrismaSchema {
  const text = readFileSync(file, 'utf8');
  const enums = new Map<string, string[]>();
  // A block ends at the first line that is just "}" (a `@default("{}")` inside must not end it).
  for (const m of text.matchAll(/^enum (\w+) \{\n([\s\S]*?)^\}/gm)) {
    enums.set(
      m[1]!,
      m[2]!
        .split('\n')
        .map((l) => l.replace(/\/\/.*/, '').trim())
        .filter(Boolean),
    );
  }
  const blocks = [...text.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)].map((m) => ({ name: m[1]!, body: m[2]! }));
  const modelNames = new Set(blocks.map((b) => b.name));
  const models = blocks.map(({ name, body }) => parseModel(name, body, modelNames, enums));
  return { models, enums };
}

function parseModel(name: string, body: string, modelNames: Set<string>, enums: Map<string, string[]>): Model {
  const model: Model = { name, table: name, scalars: [], relations: [], primaryKey: [], uniques: [], indexes: [] };
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('//')) continue;
    if (line.startsWith('@@')) {
      const [, kind, args] = /^@@(\w+)\((.*)\)$/.exec(line) ?? [];
      const columns = list(/\[([^\]]*)\]/.exec(args ?? '')?.[1] ?? '');
      if (kind === 'map') model.table = /"([^"]+)"/.exec(args!)![1]!;
      else if (kind === 'id') model.primaryKey = columns;
      else if (kind === 'unique') model.uniques.push(columns);
      else if (kind === 'index') model.indexes.push(columns);
      else throw new Error(`schema.prisma: unhandled block attribute in ${name}: ${line}`);
      continue;
    }
    const m = /^(\w+)\s+(\w+)(\[\]|\?)?\s*(.*)$/.exec(line);
    if (!m) throw new Error(`schema.prisma: unreadable line in ${name}: ${line}`);
    const [, fieldName, type, modifier, attrs = ''] = m as unknown as [
      string,
      string,
      string,
      string | undefined,
      string,
    ];
    if (modelNames.has(type)) {
      const relation = attr(attrs, 'relation');
      const fields = /fields:\s*\[([^\]]*)\]/.exec(relation ?? '')?.[1];
      if (fields !== undefined) {
        model.relations.push({
          model: type,
          fields: list(fields),
          references: list(/references:\s*\[([^\]]*)\]/.exec(relation!)![1]!),
          onDelete: /onDelete:\s*(\w+)/.exec(relation!)?.[1],
        });
      }
      continue;
    }
    if (!SCALARS.has(type) && !enums.has(type)) throw new Error(`schema.prisma: unknown type ${type} in ${name}`);
    const native = /@db\.(\w+)(?:\(([^)]*)\))?/.exec(attrs);
    const field: ScalarField = {
      name: fieldName,
      column: /@map\("([^"]+)"\)/.exec(attrs)?.[1] ?? fieldName,
      type,
      isEnum: enums.has(type),
      optional: modifier === '?',
      default: attr(attrs, 'default'),
      updatedAt: /@updatedAt\b/.test(attrs),
      isId: /@id\b/.test(attrs),
      unique: /@unique\b/.test(attrs),
      native: native ? { name: native[1]!, args: list(native[2] ?? '') } : undefined,
    };
    if (modifier === '[]') throw new Error(`schema.prisma: scalar lists are not handled (${name}.${fieldName})`);
    model.scalars.push(field);
    if (field.isId) model.primaryKey = [field.name];
    if (field.unique) model.uniques.push([field.name]);
  }
  return model;
}

export const columnsOf = (model: Model, fields: string[]) =>
  fields.map((f) => {
    const field = model.scalars.find((s) => s.name === f);
    if (!field) throw new Error(`${model.name}.${f} is not a scalar field`);
    return field.column;
  });
