// A V8 CPU profile (node --cpu-prof) read for the bench's summaries: each sample's node, stack and
// time, and where a frame's code lives (a package, a folder of this project, node's core or native).
import { readFileSync } from 'node:fs';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface ProfileFile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface CpuProfile {
  nodes: Map<number, ProfileNode>;
  /** A sample's node, when it was taken (µs, the machine's monotonic clock) and how long it stands for. */
  samples: { id: number; atUs: number; us: number }[];
  /** The node's frames from itself up to the root. */
  stack(id: number): ProfileNode[];
}

export function readCpuProfile(file: string): CpuProfile {
  const p = JSON.parse(readFileSync(file, 'utf8')) as ProfileFile;
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let at = p.startTime;
  const samples = p.samples.map((id, i) => {
    const us = p.timeDeltas[i] ?? 0;
    at += us;
    return { id, atUs: at, us };
  });
  const stacks = new Map<number, ProfileNode[]>();
  const stack = (id: number): ProfileNode[] => {
    let s = stacks.get(id);
    if (!s) {
      s = [];
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) s.push(nodes.get(cur)!);
      stacks.set(id, s);
    }
    return s;
  };
  return { nodes, samples, stack };
}

/** Where a frame's code lives: `(native)`, `node core`, a package name, or `api/…`, `shared/…` (a folder). */
export function placeOf(url: string): string {
  if (!url) return '(native)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return 'node core';
  const own = /\/(api|worker|shared|scripts|prisma)\/(.*)$/.exec(url);
  return own ? `${own[1]}/${own[2]!.split('/')[0]}` : url;
}
