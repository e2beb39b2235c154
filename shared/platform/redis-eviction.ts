// Start-up check that Redis never evicts keys. A queued request lives in Redis as its job until a worker
// answers it: a Redis that drops keys under memory pressure (allkeys-lru and the like, the default of
// several managed services) would leave such a request pending for ever. Each node's policy is read with
// CONFIG GET, which managed services often refuse, else from INFO memory; when neither answers, start-up
// goes on with a warning (docs/deployment.md, "Redis").
import { Cluster, type Redis } from 'ioredis';
import { createRedis, untilReady, type RedisTarget } from './redis';

const REQUIRED_POLICY = 'noeviction';
// A policy name is one short word such as volatile-lru; an INFO section is a few hundred bytes.
const POLICY = /^[a-z-]{1,32}$/;
const INFO_POLICY = /^maxmemory_policy:([a-z-]{1,32})\r?$/m;
const INFO_MAX_CHARS = 16_384;

/** The node's maxmemory-policy, or undefined when it answers neither CONFIG GET nor INFO memory. */
async function readEvictionPolicy(node: Redis): Promise<string | undefined> {
  try {
    const reply: unknown = await node.call('CONFIG', 'GET', 'maxmemory-policy');
    const value: unknown = Array.isArray(reply) ? reply[1] : undefined;
    if (typeof value === 'string' && POLICY.test(value)) return value;
  } catch {
    // Refused (managed Redis renames or blocks CONFIG): INFO below.
  }
  try {
    const info = String(await node.info('memory')).slice(0, INFO_MAX_CHARS);
    return INFO_POLICY.exec(info)?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Throws when a node (every master of a cluster) evicts keys; answers a warning to log when a node's
 * policy could not be read, undefined when every node is known to keep its keys.
 */
export async function checkRedisEviction(target: RedisTarget): Promise<string | undefined> {
  const redis = createRedis(target, 'producer');
  try {
    await untilReady(redis);
    const nodes: Redis[] = redis instanceof Cluster ? redis.nodes('master') : [redis];
    const policies = await Promise.all(
      nodes.map(async (node) => ({ node: nodeName(node), policy: await readEvictionPolicy(node) })),
    );
    const evicting = policies.filter((p) => p.policy !== undefined && p.policy !== REQUIRED_POLICY);
    if (evicting.length > 0) {
      const where = evicting.map((p) => `${p.policy} on ${p.node}`).join(', ');
      throw new Error(
        `Redis evicts keys under memory pressure (maxmemory-policy ${where}), which would lose queued requests: ` +
          `set maxmemory-policy to ${REQUIRED_POLICY} (redis.conf, \`CONFIG SET maxmemory-policy ${REQUIRED_POLICY}\`, ` +
          `or the managed service's parameter group) and give Redis room for the queues (docs/deployment.md, "Redis").`,
      );
    }
    const unknown = policies.filter((p) => p.policy === undefined).map((p) => p.node);
    if (unknown.length === 0) return undefined;
    return (
      `Redis maxmemory-policy could not be read on ${unknown.join(', ')} (CONFIG GET and INFO memory refused): ` +
      `make sure it is ${REQUIRED_POLICY}, or queued requests may be lost under memory pressure`
    );
  } finally {
    redis.disconnect();
  }
}

function nodeName(node: Redis): string {
  return `${node.options.host ?? '?'}:${node.options.port ?? '?'}`;
}
