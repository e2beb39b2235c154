// The container's health check (Dockerfile HEALTHCHECK, docker-compose.yml): `node
// dist/scripts/healthcheck.js <port> <path>` exits 0 when the process answers 200 on that local port.
// Plain node, because the runtime image carries no curl or wget.
const [port = '8000', path = '/healthz'] = process.argv.slice(2);

fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.status === 200 ? 0 : 1),
  () => process.exit(1),
);
