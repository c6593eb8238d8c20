// The relay's challenge room (server/lab/challenge-room.ts) on a hand-driven clock: each student's
// best accepted run is kept (a worse one later does not replace it), the board is fewest faults
// first, and every bound holds: submissions per student, verifications a second per lab.
import { describe, expect, it } from 'vitest';
import { totalFaults, type Challenge, type Schedule } from '@shared/challenges/challenge-schema.ts';
import {
  ChallengeRooms,
  MAX_SUBMISSIONS_PER_STUDENT,
  VERIFY_LIMITS,
} from '../../server/lab/challenge-room.ts';
import { loadChallenges } from '../../server/lab/challenge-catalog.ts';
import type { Lab } from '../../server/lab/lab.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { searchSolution } from '@shared/challenges/challenge-search.ts';

const catalog = loadChallenges(new URL('../../challenges/', import.meta.url).pathname);
const bully = catalog.challenges.find((c) => c.id === 'bully-split-brain')!;
const solved = searchSolution(bully)!;

function room() {
  const clock = new ManualClock();
  const lab = { deps: { clock } } as unknown as Lab;
  const rooms = new ChallengeRooms();
  rooms.open(lab, bully);
  const submit = (name: string, schedule: Schedule, c: Challenge = bully) =>
    rooms.submit(lab, name, { challenge: c.id, seed: 1, setup: c.setup, schedule });
  return { clock, lab, rooms, submit };
}

describe('the challenge board', () => {
  it("keeps each student's best run and lists fewest faults first, ties to the first", () => {
    const { rooms, lab, submit, clock } = room();
    const longer = { ...solved, elect: [{ id: 0, at: 3000 }] };
    expect(submit('Ada', longer)).toMatchObject({ accepted: true, rank: 1 });
    clock.advance(1000);
    expect(submit('Bo', solved)).toMatchObject({ accepted: true, rank: 1 });
    expect(submit('Cy', solved)).toMatchObject({ accepted: true, rank: 2 });
    // Ada improves; a worse run later does not undo it.
    expect(submit('Ada', solved)).toMatchObject({ accepted: true, rank: 3 });
    expect(submit('Ada', longer)).toMatchObject({ accepted: true });
    const view = rooms.get(lab)!.view();
    const n = totalFaults(solved);
    expect(view.board.map((e) => [e.name, e.faults])).toEqual([
      ['Bo', n],
      ['Cy', n],
      ['Ada', n],
    ]);
    expect(view.submissions).toBe(5);
  });
});

describe('bounds', () => {
  it(`refuses a student's submission past ${MAX_SUBMISSIONS_PER_STUDENT}, counted by reason`, () => {
    const { rooms, lab, submit, clock } = room();
    for (let i = 0; i < MAX_SUBMISSIONS_PER_STUDENT; i++) {
      clock.advance(1000);
      expect(submit('Dee', {})).toMatchObject({ code: 'SUBMISSION_REFUSED' });
    }
    clock.advance(1000);
    expect(submit('Dee', solved)).toMatchObject({ code: 'RATE_LIMITED' });
    expect(rooms.get(lab)!.view().refused).toEqual({
      'not-reproduced': MAX_SUBMISSIONS_PER_STUDENT,
      rate: 1,
    });
  });

  it('holds the lab to its verifications a second, and refills with time', () => {
    const { submit, clock } = room();
    for (let i = 0; i < VERIFY_LIMITS.burst; i++) submit(`S${i}`, {});
    expect(submit('Late', solved)).toMatchObject({ code: 'RATE_LIMITED' });
    clock.advance(1000);
    expect(submit('Late', solved)).toMatchObject({ accepted: true });
  });
});
