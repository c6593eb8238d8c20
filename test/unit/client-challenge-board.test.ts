// The challenge board's words (client/src/utils/challenge-board.ts) and her lab session as her
// tab keeps it (client/src/utils/lab-session.ts): the CSV says who vouches for each name
// (verified or claimed: the relay vouches only for what it checked), a live replay is said to be
// live with the simulator's time beside it, and the session sent is the id she joined last.
import { describe, expect, it } from 'vitest';
import type { ChallengeView, LiveReplay } from '@shared/challenges/challenge-api.ts';
import { challengeCsv, liveLine } from '../../client/src/utils/challenge-board.ts';
import { labSession, rememberJoin, resumeKey } from '../../client/src/utils/lab-session.ts';

const view = {
  board: [
    { rank: 1, name: 'Ines', verified: true, faults: 2, at: 1450 },
    { rank: 2, name: '=cmd', verified: false, faults: 3, at: 2000 },
  ],
} as unknown as ChallengeView;

const replay = (over: Partial<LiveReplay>): LiveReplay => ({
  rank: 1,
  name: 'Ines',
  verified: true,
  phase: 'running',
  detail: 'The live lab takes the set-up',
  simulatedAt: 1450,
  at: null,
  findings: {},
  ...over,
});

/** A store over a Map (the sessionStorage methods the module uses, and her leave's removeItem). */
function storage() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

describe('the challenge board CSV', () => {
  it('labels each name verified or claimed, and defuses a formula-like name', () => {
    const lines = challengeCsv(view).trimEnd().split('\r\n');
    expect(lines).toEqual([
      'rank,name,name_is,faults,broken_at_s',
      '1,Ines,verified,2,1.45',
      "2,'=cmd,claimed,3,2",
    ]);
  });
});

describe('the live replay line', () => {
  it('while running: time left, no finding yet, neutral', () => {
    const l = liveLine(replay({ endsInMs: 4200 }));
    expect(l.head).toBe('Live lab: running her schedule (about 4.2 s left)');
    expect(l.findings).toBe('Live checker: no finding yet');
    expect(l).toMatchObject({ running: true, tone: 'neutral', who: '#1 Ines (verified)' });
  });

  it("reproduced: the live checker's findings and both times, said as live, not simulated", () => {
    const l = liveLine(
      replay({
        phase: 'reproduced',
        detail: '4 and 5 act as coordinator at once',
        at: 1612.5,
        findings: { safety: 1, spurious: 2 },
      }),
    );
    expect(l.head).toBe('Live run reproduced the target');
    expect(l.detail).toBe(
      "4 and 5 act as coordinator at once. Live at 1.61 s; the relay's simulator at 1.45 s.",
    );
    expect(l.findings).toBe('Live checker: 1 safety, 2 spurious');
    expect(l.caveat).toMatch(/live relay’s own checker.*timing in a live lab differs/);
    expect(l).toMatchObject({ running: false, tone: 'good' });
  });

  it('not reproduced or stopped is said so, with a claimed name labelled', () => {
    const l = liveLine(replay({ phase: 'not-reproduced', verified: false, detail: 'No split.' }));
    expect(l).toMatchObject({
      head: 'Live run did not reproduce the target',
      detail: 'No split.',
      who: '#1 Ines (claimed)',
      tone: 'bad',
      findings: '',
    });
  });
});

describe('her lab session', () => {
  it('is the id she joined last in that lab, with its resume token; none before a join', () => {
    const s = storage();
    expect(labSession(s, 'lab1')).toBeNull();
    rememberJoin(s, 'lab1', 3, 'tok3');
    rememberJoin(s, 'lab2', 5, 'tok5');
    expect(labSession(s, 'lab1')).toEqual({ id: 3, resume: 'tok3' });
    expect(labSession(s, 'lab2')).toEqual({ id: 5, resume: 'tok5' });
  });

  it('is gone once she left (her resume token removed)', () => {
    const s = storage();
    rememberJoin(s, 'lab1', 3, 'tok3');
    s.removeItem(resumeKey('lab1', 3));
    expect(labSession(s, 'lab1')).toBeNull();
  });
});
