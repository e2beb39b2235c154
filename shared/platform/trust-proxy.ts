// TRUST_PROXY in the forms Express documents for its "trust proxy" setting. An environment variable is
// always a string, and Express reads a string as a list of addresses: "1" or "true" passed through
// unchanged would trust no proxy at all (or throw), so the value is turned into the type Express
// expects here, once, and a value Express would misread is refused at start.
import { isIP } from 'node:net';

export type TrustProxy = boolean | number | string[];

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_ENTRIES = 64;
const MAX_HOPS = 32;

function isSubnet(entry: string): boolean {
  const [address = '', range, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  // A prefix length (10.0.0.0/8) or, for IPv4, a netmask (10.0.0.0/255.0.0.0).
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(range) === 4;
}

/**
 * `true`/`false`; a hop count (`1`, `2`: trust that many proxies in front); or a comma-separated list
 * of `loopback`, `linklocal`, `uniquelocal`, addresses and subnets. Answers the Express value, or why
 * the text is not one.
 */
export function parseTrustProxy(text: string): { value: TrustProxy } | string {
  const value = text.trim();
  if (/^(true|false)$/i.test(value)) return { value: value.toLowerCase() === 'true' };
  if (/^\d{1,3}$/.test(value)) {
    const hops = Number(value);
    return hops <= MAX_HOPS ? { value: hops } : `a hop count above ${MAX_HOPS} is surely a mistake`;
  }
  const entries = value.split(',').map((e) => e.trim());
  if (entries.length > MAX_ENTRIES) return `at most ${MAX_ENTRIES} entries`;
  const wrong = entries.find((e) => !NAMED_RANGES.has(e) && !isSubnet(e));
  if (wrong !== undefined) {
    return `"${wrong.slice(0, 64)}" is not a hop count, true/false, loopback/linklocal/uniquelocal, an address or a subnet`;
  }
  return { value: entries };
}
