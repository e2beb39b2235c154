// The journal, result files and reports hold customer data (account numbers, amounts, the service's
// answers about them): only their owner may read them. Modes are set explicitly after creating, since
// the mode passed to mkdir/open is filtered through the process's umask (a umask of 0 would leave them
// world-readable) and does not apply to a directory or file that already exists.
import { chmodSync, fchmodSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Creates `dir` and any missing parents, each owner-only; `dir` itself is made owner-only in any case. */
export function makePrivateDir(target: string): void {
  const dir = path.resolve(target);
  const first = mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  if (first !== undefined) {
    // The parents this call created, from `first` down to `dir`: bounded by the path's depth.
    for (let d = dir; d.length >= first.length && d !== path.dirname(d); d = path.dirname(d)) chmodSync(d, DIR_MODE);
  }
  chmodSync(dir, DIR_MODE);
}

/** An existing file made owner-only (a journal an older client wrote with the umask's mode). */
export function makePrivateFile(file: string): void {
  chmodSync(file, FILE_MODE);
}

/** openSync with an owner-only mode, also when the file existed with a wider one. */
export function openPrivate(file: string, flags: 'a' | 'w' | 'wx'): number {
  const fd = openSync(file, flags, FILE_MODE);
  fchmodSync(fd, FILE_MODE);
  return fd;
}

export function writePrivateFile(file: string, text: string, flags: 'w' | 'wx' = 'w'): void {
  writeFileSync(file, text, { flag: flags, mode: FILE_MODE, flush: true });
  chmodSync(file, FILE_MODE);
}
