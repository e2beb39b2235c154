import { applyFile } from '../../shared/admin/apply.use-case';
import { createSupplier, updateSupplier } from '../../shared/admin/suppliers.use-cases';
import { ValidationError } from '../../shared/platform/errors';
import { runAdmin } from '../helpers/admin-cli';
import { openTestDb, uniqueSuffix, type TestDb } from '../helpers/context';

describe("a supplier's document root", () => {
  let t: TestDb;
  let s: string;
  let existing: { code: string; root: string };

  beforeAll(async () => {
    t = await openTestDb();
    s = uniqueSuffix();
    existing = { code: `ROOTED_${s}`, root: `imports/rooted-${s}` };
    await createSupplier(t.db, { code: existing.code, document_root: existing.root });
  });
  afterAll(() => t.db.close());

  const errorOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => err as ValidationError,
    );
  const supplierCount = () => t.db.prisma.importSupplier.count({ where: { code: { endsWith: s } } });

  it('is required: a missing or empty root is refused, naming the field', async () => {
    const missing = await errorOf(applyFile(t.db, { suppliers: [{ code: `NO_ROOT_${s}` } as never] }));
    expect(missing).toBeInstanceOf(ValidationError);
    expect(missing!.errors).toEqual([expect.objectContaining({ attr: 'suppliers.0.document_root', code: 'required' })]);
    const empty = await errorOf(createSupplier(t.db, { code: `EMPTY_ROOT_${s}`, document_root: '' }));
    expect(empty!.errors).toEqual([expect.objectContaining({ attr: 'document_root', code: 'blank' })]);
    expect(await supplierCount()).toBe(1);
  });

  it.each([
    ['the same root', (root: string) => root],
    ['a root inside it', (root: string) => `${root}/sub`],
    ['a root containing it', (root: string) => root.split('/')[0]!],
  ])("refuses %s as another supplier's, and the file changes nothing", async (_case, overlap) => {
    const file = {
      suppliers: [
        { code: `FINE_${s}`, document_root: `imports/fine-${s}` },
        { code: `CLASH_${s}`, document_root: overlap(existing.root) },
      ],
    };
    const error = await errorOf(applyFile(t.db, file));
    expect(error!.errors).toEqual([
      expect.objectContaining({ attr: 'suppliers.1.document_root', code: 'document_root_in_use' }),
    ]);
    expect(error!.message).toMatch(/overlaps supplier \w+'s/);
    expect(await supplierCount()).toBe(1);
  });

  it("lets a supplier keep or change its own root, but not move into another's", async () => {
    await applyFile(t.db, { suppliers: [{ code: existing.code, document_root: existing.root }] });
    const mover = { code: `MOVER_${s}`, root: `imports/mover-${s}` };
    await createSupplier(t.db, { code: mover.code, document_root: mover.root });
    expect(await updateSupplier(t.db, { code: mover.code, document_root: `${mover.root}-2` })).toMatchObject({
      document_root: `${mover.root}-2`,
    });
    const error = await errorOf(updateSupplier(t.db, { code: mover.code, document_root: `${existing.root}/x` }));
    expect(error!.errors).toEqual([expect.objectContaining({ attr: 'document_root', code: 'document_root_in_use' })]);
  });

  it('is enforced by a unique index as well, for writes racing past the check', async () => {
    await expect(
      t.db.prisma.importSupplier.create({ data: { code: `RACE_${s}`, documentRoot: existing.root } }),
    ).rejects.toMatchObject({ code: 'P2002' });
  });

  it('is required by the CLI', async () => {
    const run = await runAdmin(['suppliers', 'create', `CLI_NO_ROOT_${s}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/document_root: .*\[required\]/);
  });
});
