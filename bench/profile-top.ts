// Summarises a V8 CPU profile of the service (`npm run bench -- --only transactions --cpu-prof /tmp/prof`,
// written when the service stops): self time by function and by package or source folder, and total
// (inclusive) time by package and of this project's own functions. Samples are wall-clock: while the
// process waits for a CPU (a busy machine, or PostgreSQL woken by a write) its samples land on the
// frame it was in, typically writev; read CPU itself from the bench's "cores used" figures.
// Usage: tsx bench/profile-top.ts <file.cpuprofile> [rows]
import { placeOf as where, readCpuProfile, type ProfileNode } from './cpu-profile';

const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/profile-top.ts <file.cpuprofile> [rows]');
const rows = Number(rowsArg ?? 25);
const profile = readCpuProfile(file);

const self = new Map<number, number>();
for (const { id, us } of profile.samples) self.set(id, (self.get(id) ?? 0) + us);
const totalUs = [...self.values()].reduce((a, b) => a + b, 0);

const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

function top(map: Map<string, number>, title: string): void {
  console.log(`\n${title}`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${((us / totalUs) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  }
}

const selfByFunction = new Map<string, number>();
const selfByPlace = new Map<string, number>();
const inclusiveOwn = new Map<string, number>();
const inclusivePlace = new Map<string, number>();
for (const [id, us] of self) {
  const node = profile.nodes.get(id)!;
  selfByFunction.set(label(node), (selfByFunction.get(label(node)) ?? 0) + us);
  const place = where(node.callFrame.url);
  selfByPlace.set(place, (selfByPlace.get(place) ?? 0) + us);
  // Charge this sample to every distinct own-code frame and package on its stack.
  const seen = new Set<string>();
  const places = new Set<string>();
  for (const n of profile.stack(id)) {
    places.add(where(n.callFrame.url));
    if (
      /\/(api|worker|shared|scripts)\//.test(n.callFrame.url) &&
      !n.callFrame.url.includes('node_modules') &&
      !n.callFrame.url.includes('/generated/')
    ) {
      const l = label(n);
      if (!seen.has(l)) inclusiveOwn.set(l, (inclusiveOwn.get(l) ?? 0) + us);
      seen.add(l);
    }
  }
  for (const p of places) inclusivePlace.set(p, (inclusivePlace.get(p) ?? 0) + us);
}
console.log(`${file}: ${(totalUs / 1e6).toFixed(1)} s sampled`);
top(selfByPlace, 'self time by package / folder');
top(inclusivePlace, 'total time by package / folder (anywhere on the stack)');
top(selfByFunction, 'self time by function');
top(inclusiveOwn, "total time of the project's own functions");
