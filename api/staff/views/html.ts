// Server-rendered HTML with escaping by default: every value interpolated into html`…` is escaped
// unless it is itself html`…` output. Attribute values in templates are always double-quoted.
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** What a template may interpolate: an object has no text of its own, so it is refused when compiling. */
export type HtmlValue = SafeHtml | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (isList(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

// Array.isArray does not narrow a readonly array type.
function isList(value: HtmlValue): value is readonly HtmlValue[] {
  return Array.isArray(value);
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''));
}

/** A same-site URL: path segments and query values percent-encoded (then escaped where interpolated). */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export const segment = encodeURIComponent;
