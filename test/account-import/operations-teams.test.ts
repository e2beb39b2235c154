// Operations teams are set up by the platform team with `admin apply`: applying adds, twice changes nothing.
import { applyFile } from '../../shared/admin/apply.use-case';
import { ValidationError } from '../../shared/platform/errors';
import { openTestDb, uniqueSuffix, type TestDb } from '../helpers/context';

describe('admin apply: operations_teams', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(() => t.db.close());

  const teams = async (names: string[]) =>
    (
      await t.db.pool.query<{ name: string }>('SELECT name FROM operations_teams WHERE name = ANY($1) ORDER BY name', [
        names,
      ])
    ).rows.map((r) => r.name);

  it('adds the teams, once however often the file is applied', async () => {
    const names = [`Team A ${uniqueSuffix()}`, `Team B ${uniqueSuffix()}`];
    const file = { operations_teams: names.map((name) => ({ name })) };
    expect((await applyFile(t.db, file)).operations_teams).toEqual(names);
    await applyFile(t.db, file);
    expect(await teams(names)).toEqual([...names].sort());
  });

  it('refuses a blank name, a name with spaces at its ends and unknown keys, changing nothing', async () => {
    const good = `Team C ${uniqueSuffix()}`;
    for (const bad of [{ name: '' }, { name: ' padded' }, { name: good, colour: 'red' }]) {
      await expect(applyFile(t.db, { operations_teams: [{ name: good }, bad] })).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
    expect(await teams([good])).toEqual([]);
  });
});
