// electionUnderWay (client/src/utils/election-under-way.ts): a dashboard opened during a stall
// saw no election start in the trace, and said "No election yet" beside a late-election finding
// (issue 24). Whoever witnesses an election under way (the relay, its checker, the live
// processes' reports, the page's own tracker) makes it say so, with how long it has run.
import { describe, expect, it } from 'vitest';
import {
  electionUnderWay,
  noElectionText,
  type UnderWayInput,
} from '../../client/src/utils/election-under-way.ts';

const proc = (id: number, electing: boolean | null, status = 'up') => ({
  id,
  status,
  report: electing === null ? null : { electing },
});
const settled = [proc(0, false), proc(1, false), proc(2, false)];
/** The texts with their no-break spaces (between a figure and its unit) as plain ones, to read. */
const plain = (text: string) => text.replace(/\u00a0/g, ' ');
const base: UnderWayInput = {
  current: null,
  processes: settled,
  relay: null,
  checker: null,
  now: 5000,
};

describe('electionUnderWay', () => {
  it('is null when nobody witnesses an election: the page may say "No election yet"', () => {
    expect(electionUnderWay(base)).toBeNull();
    expect(
      electionUnderWay({
        ...base,
        relay: { now: 9000, election: { active: false, startedAt: 1000 } },
        checker: { active: false, since: null },
      }),
    ).toBeNull();
  });

  it('a page opened during a stall: the reports say electing and the relay says since when; the messages before the page opened are not counted', () => {
    const processes = [
      proc(0, true),
      proc(1, true),
      proc(2, false),
      proc(3, true, 'crashed'),
      proc(4, null, 'absent'),
    ];
    const u = electionUnderWay({
      ...base,
      processes,
      relay: { now: 95_000, election: { active: true, startedAt: 20_000 } },
      now: 60_000,
    });
    expect(u).toMatchObject({
      electing: [0, 1],
      up: 3,
      since: 20_000,
      forMs: 75_000,
      seenStart: false,
    });
    expect(plain(u!.text)).toBe(
      'An election has been running for 75 s: 2 of 3 live processes report electing. It began before this page opened: its messages are not counted here.',
    );
  });

  it('the relay clock runs on in a stall: the duration follows it, not the last event the page saw', () => {
    const processes = [proc(0, true), proc(1, false)];
    const relay = (now: number) => ({ now, election: { active: true, startedAt: 1000 } });
    expect(
      plain(electionUnderWay({ ...base, processes, relay: relay(4500), now: 2000 })!.text),
    ).toMatch(/^An election has been running for 3\.5 s:/);
    expect(electionUnderWay({ ...base, processes, relay: relay(31_000), now: 2000 })!.forMs).toBe(
      30_000,
    );
  });

  it("the checker's episode alone (no stats election, no report yet) says one is under way, from the checker's start", () => {
    const u = electionUnderWay({ ...base, checker: { active: true, since: 3000 } });
    expect(u).toMatchObject({ electing: [], since: 3000, forMs: 2000 });
    expect(plain(u!.text)).toBe(
      'An election has been running for 2.0 s: no live process reports electing any more. It began before this page opened: its messages are not counted here.',
    );
  });

  it('reports alone (no stats polled, as on the projector): under way, of unknown length', () => {
    const u = electionUnderWay({ ...base, processes: [proc(0, true), proc(1, false)] });
    expect(u).toMatchObject({ since: null, forMs: null, seenStart: false });
    expect(plain(u!.text)).toBe(
      'An election is under way: 1 of 2 live processes report electing. It began before this page opened: its messages are not counted here.',
    );
  });

  it("the page's tracker saw it start: its start is the fallback, and its messages are counted", () => {
    const u = electionUnderWay({ ...base, processes: [proc(0, true)], current: { start: 4000 } });
    expect(u).toMatchObject({ since: 4000, forMs: 1000, seenStart: true });
    expect(plain(u!.text)).toBe(
      'An election has been running for 1.0 s: 1 of 1 live processes report electing.',
    );
  });

  it("the relay's start wins over the checker's and the tracker's (it saw the whole election)", () => {
    const u = electionUnderWay({
      ...base,
      processes: [proc(0, true)],
      current: { start: 4000 },
      checker: { active: true, since: 2500 },
      relay: { now: 5000, election: { active: true, startedAt: 2000 } },
    });
    expect(u!.since).toBe(2000);
  });

  it('a crashed process that last reported electing is no witness', () => {
    expect(
      electionUnderWay({ ...base, processes: [proc(0, false), proc(1, true, 'crashed')] }),
    ).toBeNull();
  });
});

describe('noElectionText', () => {
  it('"No election yet" only when the relay says none has run; before its answer, only what this page knows', () => {
    expect(
      noElectionText({
        now: 9000,
        election: { active: false, startedAt: null, endedAt: null, duration: null },
      }),
    ).toBe('No election yet.');
    expect(noElectionText(null)).toBe('No election since this page opened.');
  });

  it('a page opened after the class elected (the projector put up late) says when the last election ended and how long it took', () => {
    expect(
      noElectionText({
        now: 95_000,
        election: { active: false, startedAt: 40_000, endedAt: 52_000, duration: 12_000 },
      }),
    ).toContain('43\u00a0s ago');
    expect(
      plain(
        noElectionText({
          now: 95_000,
          election: { active: false, startedAt: 40_000, endedAt: 52_000, duration: 12_000 },
        }),
      ),
    ).toBe(
      'No election since this page opened; the last one ended 43 s ago, after 12 s (Replay shows it).',
    );
    expect(noElectionText({ now: 5000, election: { active: false, startedAt: 1000 } })).toBe(
      'No election since this page opened (Replay shows it).',
    );
  });
});
