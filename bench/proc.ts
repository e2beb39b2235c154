// Per-process readings from /proc (Linux): resident memory and CPU time.
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size in MB, or NaN once the process is gone. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** User + system CPU seconds the process has used (0 once it is gone). */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuSplitSeconds(pid);
  return user + system;
}

/** The process's CPU seconds in its own code (user) and in the kernel on its behalf (system). */
export function cpuSplitSeconds(pid: number): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** The process and its descendants (the service may run its workers as a child process). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while listed
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

export function loadAverage(): number[] {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
}

let reaped = 0;
/** CPU seconds of this process's exited (and waited-for) children since the previous call. */
export function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime are fields 16 and 17.
  const total = (Number(fields[13]) + Number(fields[14])) / 100;
  const delta = total - reaped;
  reaped = total;
  return delta;
}

/** The `npm start` children under a supervisor, by role, told apart by the entry file they run. */
export function childrenByRole(supervisorPid: number): { api: number[]; worker: number[] } {
  const out = { api: [] as number[], worker: [] as number[] };
  for (const pid of processTree(supervisorPid).slice(1)) {
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (/api[/\\]main\.(js|ts)/.test(cmd)) out.api.push(pid);
    else if (/worker[/\\]main\.(js|ts)/.test(cmd)) out.worker.push(pid);
  }
  return out;
}
