// The staff commands of the admin CLI, run as the platform team runs them (a child process), and the
// accounts they make used on the sign-in page.
import { runAdmin } from '../helpers/admin-cli';
import { uniqueSuffix } from '../helpers/context';
import { StaffClient, startStaffApp, type StaffTestApp } from './staff-app';

const admin = (args: string[], stdin?: string) => runAdmin(args, { stdin });

describe('admin CLI staff commands', () => {
  let app: StaffTestApp;
  beforeAll(async () => {
    app = await startStaffApp();
  });
  afterAll(() => app.close());

  it('creates an operator with a password from stdin and a support user with a generated one; both can sign in', async () => {
    const operator = `op-${uniqueSuffix().toLowerCase()}`;
    const created = await admin(
      ['staff', 'create', operator, '--role', 'operator', '--password-stdin'],
      'a passphrase from stdin\n',
    );
    expect(created).toMatchObject({ code: 0, json: { username: operator, role: 'operator', status: 'active' } });
    expect(created.json).not.toHaveProperty('password');
    expect((await new StaffClient(app.baseUrl).login(operator, 'a passphrase from stdin')).location).toBe(
      '/admin/queues',
    );

    const support = `sup-${uniqueSuffix().toLowerCase()}`;
    const generated = await admin(['staff', 'create', support, '--role', 'support']);
    expect(generated.code).toBe(0);
    expect((await new StaffClient(app.baseUrl).login(support, generated.json.password)).location).toBe('/support/');
  });

  it('disables, enables, rotates and lists staff users without ever printing a hash', async () => {
    const username = `st-${uniqueSuffix().toLowerCase()}`;
    const { json: first } = await admin(['staff', 'create', username, '--role', 'support']);
    expect((await admin(['staff', 'disable', username])).json.status).toBe('disabled');
    expect((await new StaffClient(app.baseUrl).login(username, first.password)).status).toBe(401);
    expect((await admin(['staff', 'enable', username])).json.status).toBe('active');
    const rotated = await admin(['staff', 'set-password', username]);
    expect(rotated.json.password).not.toBe(first.password);
    expect((await new StaffClient(app.baseUrl).login(username, first.password)).status).toBe(401);
    expect((await new StaffClient(app.baseUrl).login(username, rotated.json.password)).status).toBe(303);
    const list = await admin(['staff', 'list']);
    expect(list.json).toContainEqual(expect.objectContaining({ username, role: 'support', status: 'active' }));
    expect(JSON.stringify(list.json)).not.toMatch(/scrypt|"password"/);
    const refused = await admin(['staff', 'create', `x-${username}`, '--role', 'admin']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/role: .*\[invalid_choice\]/);
  });
});
