// A resumed run's progress: the lines final before it count as done and its earlier failures as
// failures, but neither goes into the rate (so neither shortens the ETA). The figures read an injected
// clock, so the test moves time by hand instead of measuring it.
import { ProgressReporter } from '../../client/progress-reporter';

it('goes on from the earlier failures and counts only this pass in the rate', () => {
  let now = 1_000_000;
  // 10 lines were final before the resume, 3 of them failed; 35 lines in all.
  const progress = new ProgressReporter('json', 60_000, { already: 10, earlierFailed: 3, clock: () => now });
  progress.counts.total = 35;
  expect(progress.counts.failed).toBe(3);
  expect(progress.processed()).toBe(10);
  expect(progress.figures()).toEqual({ processed: 10, rate: 0, eta: null });

  progress.counts.succeeded += 4;
  progress.counts.failed += 1;
  now += 2_500;
  expect(progress.processed()).toBe(15);
  expect(progress.counts.failed).toBe(4);
  // Only the 5 items of this pass are its work: 5 in 2.5 s is 2 a second, and 20 lines are left.
  expect(progress.elapsedSeconds()).toBe(2.5);
  expect(progress.figures()).toEqual({ processed: 15, rate: 2, eta: 10 });
});

it('reports no rate before any time has passed, however much is done', () => {
  const progress = new ProgressReporter('json', 60_000, { clock: () => 42 });
  progress.counts.total = 3;
  progress.counts.succeeded = 3;
  expect(progress.figures()).toEqual({ processed: 3, rate: 0, eta: null });
});
