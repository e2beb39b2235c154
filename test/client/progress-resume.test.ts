// A resumed run's progress: the lines final before it count as done and its earlier failures as
// failures, but neither goes into the rate (so neither shortens the ETA).
import { ProgressReporter } from '../../client/progress-reporter';

it('goes on from the earlier failures and counts only this pass in the rate', () => {
  // 10 lines were final before the resume, 3 of them failed.
  const progress = new ProgressReporter('json', 60_000, 10, 3);
  expect(progress.counts.failed).toBe(3);
  expect(progress.processed()).toBe(10);

  progress.counts.succeeded += 4;
  progress.counts.failed += 1;
  expect(progress.processed()).toBe(15);
  expect(progress.counts.failed).toBe(4);
  // Only the 5 items of this pass are its work: the rate is never above 5 per elapsed second.
  expect(progress.rate() * progress.elapsedSeconds()).toBeLessThanOrEqual(5 + 1);
});
