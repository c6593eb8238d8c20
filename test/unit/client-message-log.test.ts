// mergeLog (client/src/utils/message-log.ts): a process page's inbox and outbox keep the newest
// heartbeats and the newest election messages each within their own budget. With one shared
// budget the new coordinator of issue 24's class of twelve showed an empty outbox (heartbeats
// hidden) right after it had sent 32 election messages.
import { describe, expect, it } from 'vitest';
import { mergeLog } from '../../client/src/utils/message-log.ts';

const entry = (n: number, background = false) => ({ n, background });

describe('mergeLog', () => {
  it('puts the fresh entries, newest first, in front of what was kept', () => {
    expect(mergeLog([entry(2), entry(1)], [entry(3), entry(4)], 10).map((e) => e.n)).toEqual([
      4, 3, 2, 1,
    ]);
  });

  it("a coordinator's heartbeats never push its election messages out", () => {
    const election = Array.from({ length: 32 }, (_, i) => entry(i));
    let log = mergeLog([], election, 100);
    // A minute of heartbeats to eleven followers, published four times a second.
    for (let batch = 0; batch < 240; batch++)
      log = mergeLog(
        log,
        Array.from({ length: 6 }, (_, i) => entry(1000 + batch * 6 + i, true)),
        100,
      );
    expect(log.filter((e) => !e.background).map((e) => e.n)).toEqual(
      election.map((e) => e.n).reverse(),
    );
    const beats = log.filter((e) => e.background);
    expect(beats).toHaveLength(100);
    expect(beats[0]!.n).toBe(1000 + 240 * 6 - 1);
  });

  it('each kind keeps its newest `limit`', () => {
    const fresh = [entry(1), entry(2, true), entry(3), entry(4, true), entry(5)];
    expect(mergeLog([], fresh, 2).map((e) => e.n)).toEqual([5, 4, 3, 2]);
  });
});
