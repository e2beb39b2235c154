// docs/configuration.md documents every setting of the service's configuration schema, under its
// name, with the default the schema applies; and names no setting the schema does not have.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigSchema } from '../../shared/platform/config';

const ROOT = path.resolve(__dirname, '..', '..');
const text = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
// The settings of the service itself come before the section on variables other programs read.
const serviceSection = text.split('\n## Outside the service')[0]!;

/** Table rows of the service's settings: [first cell, second cell], one per row. */
const rows = serviceSection
  .split('\n')
  .filter((line) => /^\| `[A-Z0-9_]+`/.test(line))
  .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, '').trim()));

const documented = new Map(rows.map(([name, fallback]) => [name!.replace(/`/g, ''), fallback ?? '']));

describe('docs/configuration.md', () => {
  const settings = Object.keys(ConfigSchema.shape);

  it('has one row for every setting of the schema, and none for a setting it lacks', () => {
    expect([...documented.keys()].sort()).toEqual([...settings].sort());
  });

  it('gives the default the schema applies wherever the default is written as one value', () => {
    const defaults = ConfigSchema.parse({}) as Record<string, unknown>;
    const compared = [...documented].filter(([, fallback]) => /^`[^`]*`$/.test(fallback));
    expect(compared.length).toBeGreaterThan(40);
    for (const [name, fallback] of compared) {
      expect({ name, default: fallback.slice(1, -1) }).toEqual({ name, default: String(defaults[name]) });
    }
  });
});
