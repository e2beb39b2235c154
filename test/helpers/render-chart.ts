// Renders deploy/helm/data-import without helm (not installable on every machine that runs the tests).
// The chart keeps to a small part of Helm's template language, and this renderer refuses anything
// else, so what it renders is what `helm template` renders: `{{ .Values.a.b }}`, `{{ .Values.a.b |
// quote }}`, `{{ .Files.Get "file" | indent N }}`, raw strings ({{`…`}}), and `{{- if .Values.a.b }}` /
// `{{- end }}` on lines of their own (not nested).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export const CHART = path.join(__dirname, '../../deploy/helm/data-import');

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Obj = Record<string, any>;

export interface RenderedFile {
  template: string;
  text: string;
  objects: Obj[];
}

function lookup(values: Obj, dotted: string): unknown {
  let current: unknown = values;
  for (const key of dotted.split('.')) {
    if (typeof current !== 'object' || current === null || !(key in current)) {
      throw new Error(`.Values.${dotted} is not set`);
    }
    current = (current as Obj)[key];
  }
  return current;
}

const IF = /^\{\{- if \.Values\.([\w.]+) \}\}$/;
const END = /^\{\{- end \}\}$/;
const FILES_GET = /^\{\{ \.Files\.Get "([\w./-]+)" \| indent (\d+) \}\}$/;
const EXPRESSION = /\{\{`([^`]*)`\}\}|\{\{ \.Values\.([\w.]+)( \| quote)? \}\}/g;

function renderLine(line: string, values: Obj, template: string): string {
  const files = FILES_GET.exec(line);
  if (files) {
    const pad = ' '.repeat(Number(files[2]));
    return readFileSync(path.join(CHART, files[1]!), 'utf8')
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => pad + l)
      .join('\n');
  }
  // Anything left between braces is template language this renderer does not speak.
  if (line.replace(EXPRESSION, '').includes('{{')) {
    throw new Error(`${template}: unsupported template expression in: ${line}`);
  }
  return line.replace(EXPRESSION, (_m, raw: string | undefined, dotted: string | undefined, quote?: string) => {
    if (raw !== undefined) return raw;
    const value = lookup(values, dotted!);
    return quote ? JSON.stringify(String(value)) : String(value);
  });
}

/** The chart's values.yaml with `overrides` merged in (one level deep per key). */
export function chartValues(overrides: Obj = {}): Obj {
  const values = parse(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')) as Obj;
  for (const [key, value] of Object.entries(overrides)) {
    values[key] = typeof value === 'object' && value !== null ? { ...values[key], ...value } : value;
  }
  return values;
}

/** Every template of the chart rendered with `values`, as text and as objects. */
export function renderChart(values: Obj = chartValues()): RenderedFile[] {
  const templates = readdirSync(path.join(CHART, 'templates'))
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  return templates.map((template) => {
    const lines: string[] = [];
    let keep = true;
    let open = false;
    for (const line of readFileSync(path.join(CHART, 'templates', template), 'utf8').split('\n')) {
      const condition = IF.exec(line);
      if (condition) {
        if (open) throw new Error(`${template}: nested if`);
        open = true;
        keep = Boolean(lookup(values, condition[1]!));
        continue;
      }
      if (END.test(line)) {
        open = false;
        keep = true;
        continue;
      }
      if (keep) lines.push(renderLine(line, values, template));
    }
    if (open) throw new Error(`${template}: if without end`);
    const text = lines.join('\n');
    const objects = parseAllDocuments(text)
      .map((d) => d.toJS() as Obj | null)
      .filter((o): o is Obj => o !== null);
    return { template, text, objects };
  });
}
