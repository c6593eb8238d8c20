// Lab ownership as a lease in Redis (after Redis's single-instance lock pattern): the value names
// the owner and its fencing epoch, the key expires unless the owner renews it. The epoch only
// grows (INCR), so anything the owner writes can be told apart from what an earlier owner wrote.
import { KEYS } from './keys.ts';
import type { Redis } from './redis-link.ts';

export interface Lease {
  relay: string;
  epoch: number;
}

// Renew if still ours (1); take it again if it vanished, Redis restarted empty (2); else it is
// lost (0). Run by the lease keeper's thread (lease-keeper.ts).
export const RENEW = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  local e = tonumber(redis.call('GET', KEYS[2]) or '0')
  if e < tonumber(ARGV[3]) then redis.call('SET', KEYS[2], ARGV[3]) end
  return 2
end
return 0`;

// The next epoch, above `floor` too (the epoch in the lab's fence record on disk), so a Redis that
// restarted empty never hands out an epoch the shared folder already fenced off.
const NEXT_EPOCH = `
local e = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[1])
if e <= floor then e = floor + 1 redis.call('SET', KEYS[1], e) end
return e`;

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

// A write to the lab's shared state in Redis, done only while the lease still names this owner
// and epoch: a deposed owner's write is refused by Redis itself.
const FENCED_HSET = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1`;

export const leaseValue = (l: Lease): string => `${l.relay} ${l.epoch}`;

function parseLease(v: string | null): Lease | null {
  if (!v) return null;
  const [relay, epoch] = v.split(' ');
  const n = Number(epoch);
  return relay && Number.isSafeInteger(n) ? { relay, epoch: n } : null;
}

/** Takes the lab if nobody holds it: the new owner's epoch is one more than any before (and than `floor`). */
export async function acquire(
  redis: Redis,
  lab: string,
  relay: string,
  ttlMs: number,
  floor = 0,
): Promise<Lease | null> {
  // Claim with a placeholder first so two relays cannot both take an epoch and both win.
  const claimed = await redis.set(KEYS.lease(lab), `${relay} 0`, {
    condition: 'NX',
    expiration: { type: 'PX', value: ttlMs },
  });
  if (claimed !== 'OK') return null;
  const epoch = Number(
    await redis.eval(NEXT_EPOCH, { keys: [KEYS.epoch(lab)], arguments: [String(floor)] }),
  );
  const lease = { relay, epoch };
  await redis.set(KEYS.lease(lab), leaseValue(lease), { expiration: { type: 'PX', value: ttlMs } });
  return lease;
}

/** HSET `hash` `field` `value` as the owner of `lease`; false when the lease is no longer it (refused). */
export async function fencedHSet(
  redis: Redis,
  lab: string,
  lease: Lease,
  hash: string,
  field: string,
  value: string,
): Promise<boolean> {
  return (
    (await redis.eval(FENCED_HSET, {
      keys: [KEYS.lease(lab), hash],
      arguments: [leaseValue(lease), field, value],
    })) === 1
  );
}

export async function release(redis: Redis, lab: string, lease: Lease): Promise<void> {
  await redis.eval(RELEASE, { keys: [KEYS.lease(lab)], arguments: [leaseValue(lease)] });
}

export async function holder(redis: Redis, lab: string): Promise<Lease | null> {
  return parseLease(await redis.get(KEYS.lease(lab)));
}
