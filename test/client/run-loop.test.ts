// One idea of a kind in the client: every kind's pass goes through one loop (client/run-pass.ts) that
// reads the input, and a kind differs only by its send strategy (items batched per account, or accounts
// scheduled and followed). Read from the source, so a second loop growing back fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const source = (file: string) => readFileSync(path.join(__dirname, '../../client', file), 'utf8');

it('reads a run input in one loop only, with each kind a strategy behind the same interface', () => {
  expect(source('run-pass.ts')).toMatch(/for await \(const entry of markRepeats\(meta\.kind, readEntries\(/);
  for (const strategy of ['send-run.ts', 'accounts/account-run.ts']) {
    const text = source(strategy);
    expect([strategy, /readEntries\(/.test(text)]).toEqual([strategy, false]);
    expect([strategy, /implements SendStrategy/.test(text)]).toEqual([strategy, true]);
  }
  expect(source('send-run.ts')).toMatch(/return runPass\(journal, settings, strategy\)/);
});
