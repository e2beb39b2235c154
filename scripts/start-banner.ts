// The one line for people that `npm start` prints beside its JSON logs (on stderr, so stdout stays
// JSON): where the API, its documentation and the staff pages answer.
import type { Config } from '../shared/platform/config';

type Addresses = Pick<Config, 'HOST' | 'PORT' | 'STAFF_PORT' | 'STAFF_HOST'>;

/** A wildcard address is not one to browse to: this machine stands in for it. */
const browsable = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host);

const origin = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

export function startBanner(config: Addresses): string {
  const api = origin(browsable(config.HOST), config.PORT);
  let staff = `${api}/login (queues ${api}/admin/queues, support ${api}/support/)`;
  if (config.STAFF_PORT === 0) staff = `on a free port of ${config.STAFF_HOST} (STAFF_PORT=0: the API log names it)`;
  else if (config.STAFF_PORT !== undefined) {
    const s = origin(browsable(config.STAFF_HOST), config.STAFF_PORT);
    staff = `${s}/login (queues ${s}/admin/queues, support ${s}/support/)`;
  }
  return `data-import service: API ${api}/v1/data-import/, docs ${api}/docs (OpenAPI ${api}/v1/data-import/openapi.json), staff pages ${staff}\n`;
}
