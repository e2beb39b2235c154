// Finds the relative links of Markdown files that lead nowhere: a file or folder that does not exist,
// or a #fragment that names no heading of the Markdown file it points into. Links inside code (fenced
// blocks and inline code spans) are not links and are ignored; links with a scheme (https:, mailto:)
// are not checked.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Markdown files this repository's documentation is made of are far smaller; a larger one is a mistake. */
const MAX_FILE_CHARS = 1_000_000;

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  problem: string;
}

/** The file's lines with code blanked out: fenced blocks emptied, inline code spans replaced by a space. */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    if (marker !== undefined) {
      fence = marker;
      return '';
    }
    return line.replace(/(`+)[^`]*?\1/g, ' ');
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function githubSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a Markdown file offers: its headings' slugs (repeats numbered as GitHub does). */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function readMarkdown(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (text.length > MAX_FILE_CHARS) throw new Error(`${file} is over ${MAX_FILE_CHARS} characters`);
  return text;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[id]: target`. */
const INLINE_LINK = /!?\[[^\]\n]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"\n]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s+"[^"\n]*")?\s*$/;

/** The broken relative links of one Markdown file. */
export function brokenLinksIn(file: string, root: string): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const lines = proseLines(readMarkdown(file));
  lines.forEach((line, index) => {
    const targets = [...line.matchAll(INLINE_LINK)].map((m) => m[1]!);
    const definition = REFERENCE_DEFINITION.exec(line)?.[1];
    if (definition !== undefined) targets.push(definition);
    for (const target of targets) {
      const problem = problemOf(target, file, root);
      if (problem) broken.push({ file: path.relative(root, file), line: index + 1, target, problem });
    }
  });
  return broken;
}

function problemOf(target: string, file: string, root: string): string | undefined {
  if (target === '') return 'empty link';
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const fragment = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved =
    pathPart === ''
      ? file
      : path.resolve(pathPart.startsWith('/') ? root : path.dirname(file), `.${path.sep}${pathPart}`);
  if (!existsSync(resolved)) return `no such file: ${path.relative(root, resolved)}`;
  if (fragment === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
    return `#${fragment} points into a non-Markdown file`;
  if (!anchorsOf(readMarkdown(resolved)).has(fragment.toLowerCase())) {
    return `no heading with anchor #${fragment} in ${path.relative(root, resolved)}`;
  }
  return undefined;
}

/** README.md and every Markdown file under docs/, at any depth (folders bounded by the repository's). */
export function documentationFiles(root: string): string[] {
  const files = [path.join(root, 'README.md')];
  const folders = [path.join(root, 'docs')];
  for (let i = 0; i < folders.length && i < 10_000; i++) {
    const folder = folders[i]!;
    if (!existsSync(folder)) continue;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) folders.push(full);
      else if (entry.name.endsWith('.md')) files.push(full);
    }
  }
  return files.sort();
}
