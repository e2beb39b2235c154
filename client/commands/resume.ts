// `resume <journal dir> | --latest`: continues a stopped run with the same keys, once the input is
// proven to be the very same file (its checksum).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { defineCommand } from '../cli/command';
import { CONNECTION, JSON_OUTPUT, RUN_SETTINGS, RUNS_DIR, runsDirOf } from '../cli/common-options';
import { UsageError } from '../client-errors';
import { scanFile } from '../input-reader';
import { readMeta, RunJournal } from '../run-journal';
import { executePass, passSettings } from '../run-session';

export const resumeCommand = defineCommand({
  name: 'resume',
  args: '<journal dir> | --latest',
  summary: 'continue a stopped run with the same keys (input checksum checked)',
  options: {
    latest: { type: 'boolean', help: 'the newest run in --runs-dir' },
    ...RUNS_DIR,
    ...RUN_SETTINGS,
    ...CONNECTION,
    ...JSON_OUTPUT,
  },
  async action({ positionals, values }) {
    const dir = values.latest ? latestRun(runsDirOf(values)) : positionals[0];
    if (!dir || positionals.length > 1 || (values.latest && positionals.length > 0)) {
      throw new UsageError('resume takes one journal directory, or --latest');
    }
    const settings = passSettings(values);
    const journal = await RunJournal.open(path.resolve(dir));
    const { input, checksum } = journal.meta;
    if (!existsSync(input)) throw new UsageError(`the run's input ${input} is not here: put it back at that path`);
    if ((await scanFile(input)).checksum !== checksum) {
      journal.close();
      throw new UsageError(
        `${input} changed since the run started (checksum differs): resume needs the very same file`,
      );
    }
    return executePass(journal, settings);
  },
});

/** The newest run in the runs directory, by the time its run.json says it started. */
function latestRun(runsDir: string): string {
  const runs = existsSync(runsDir)
    ? readdirSync(runsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(path.join(runsDir, d.name, 'run.json')))
        .map((d) => {
          const dir = path.join(runsDir, d.name);
          return { dir, at: String(readMeta(dir).created_at) };
        })
    : [];
  const newest = runs.sort((a, b) => a.at.localeCompare(b.at)).at(-1);
  if (!newest) throw new UsageError(`no runs in ${runsDir}`);
  return newest.dir;
}
