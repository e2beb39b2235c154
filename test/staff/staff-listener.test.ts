// Where the staff listener binds: loopback unless STAFF_HOST says otherwise, never the public HOST by
// default (a deployment that forgets its firewall rule then exposes no sign-in form).
import type { AddressInfo } from 'node:net';
import { request, startTestApp } from '../helpers/app';

describe('the staff listener address', () => {
  it('binds 127.0.0.1 by default while the API listens on every interface', async () => {
    const app = await startTestApp({ HOST: '0.0.0.0', STAFF_PORT: '0' });
    try {
      expect((app.api.server.address() as AddressInfo).address).toBe('0.0.0.0');
      expect((app.api.staff!.server.address() as AddressInfo).address).toBe('127.0.0.1');
      expect((await request(`http://127.0.0.1:${app.api.staff!.port}`, 'GET', '/login')).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('binds STAFF_HOST when it is set', async () => {
    const app = await startTestApp({ HOST: '127.0.0.1', STAFF_HOST: '0.0.0.0', STAFF_PORT: '0' });
    try {
      expect((app.api.staff!.server.address() as AddressInfo).address).toBe('0.0.0.0');
    } finally {
      await app.close();
    }
  });
});
