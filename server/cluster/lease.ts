// Lab ownership as a lease in Redis (after Redis's single-instance lock pattern): the value names
// the owner and its fencing epoch, the key expires unless the owner renews it. The epoch only
// grows (INCR), so anything the owner writes can be told apart from what an earlier owner wrote.
import { KEYS } from './keys.ts';
import type { Redis } from './redis-link.ts';

export interface Lease {
  relay: string;
  epoch: number;
}

type RenewOutcome = 'renewed' | 'reacquired' | 'lost' | 'unreachable';

// Renew if still ours; take it again if it vanished (Redis restarted empty); else it is lost.
const RENEW = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  local e = tonumber(redis.call('GET', KEYS[2]) or '0')
  if e < tonumber(ARGV[3]) then redis.call('SET', KEYS[2], ARGV[3]) end
  return 2
end
return 0`;

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const leaseValue = (l: Lease): string => `${l.relay} ${l.epoch}`;

function parseLease(v: string | null): Lease | null {
  if (!v) return null;
  const [relay, epoch] = v.split(' ');
  const n = Number(epoch);
  return relay && Number.isSafeInteger(n) ? { relay, epoch: n } : null;
}

/** Takes the lab if nobody holds it: the new owner's epoch is one more than any before. */
export async function acquire(redis: Redis, lab: string, relay: string, ttlMs: number): Promise<Lease | null> {
  // Claim with a placeholder first so two relays cannot both take an epoch and both win.
  const claimed = await redis.set(KEYS.lease(lab), `${relay} 0`, { condition: 'NX', expiration: { type: 'PX', value: ttlMs } });
  if (claimed !== 'OK') return null;
  const epoch = await redis.incr(KEYS.epoch(lab));
  const lease = { relay, epoch };
  await redis.set(KEYS.lease(lab), leaseValue(lease), { expiration: { type: 'PX', value: ttlMs } });
  return lease;
}

export async function renew(redis: Redis, lab: string, lease: Lease, ttlMs: number): Promise<RenewOutcome> {
  try {
    const r = await redis.eval(RENEW, { keys: [KEYS.lease(lab), KEYS.epoch(lab)], arguments: [leaseValue(lease), String(ttlMs), String(lease.epoch)] });
    return r === 1 ? 'renewed' : r === 2 ? 'reacquired' : 'lost';
  } catch {
    return 'unreachable';
  }
}

export async function release(redis: Redis, lab: string, lease: Lease): Promise<void> {
  await redis.eval(RELEASE, { keys: [KEYS.lease(lab)], arguments: [leaseValue(lease)] });
}

export async function holder(redis: Redis, lab: string): Promise<Lease | null> {
  return parseLease(await redis.get(KEYS.lease(lab)));
}
