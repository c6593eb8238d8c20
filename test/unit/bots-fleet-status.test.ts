// The bot fleet's summary (shared/lab-client/bot-fleet.ts, `fleetStatus`): "agreed" means one
// live coordinator (002: "All processes (that have not crashed) eventually set e_i = P, where P
// is the non-crashed process with highest id"), as everywhere the lab reports agreement.
import { describe, expect, it } from 'vitest';
import type { Report } from '@shared/algorithms/algorithm.ts';
import { fleetStatus } from '@shared/lab-client/bot-fleet.ts';
import type { LabProcessStatus } from '@shared/lab-client/lab-client.ts';

const follower = (coordinator: number | null, electing = false): Report => ({
  role: 'follower',
  coordinator,
  electing,
});
const member = (id: number, status: LabProcessStatus, report: Report | null) => ({
  id,
  status,
  report,
});

describe('fleetStatus', () => {
  it('agreed: every up bot follows the same coordinator, which is up, and none is electing', () => {
    const s = fleetStatus([
      member(0, 'up', follower(2)),
      member(1, 'up', follower(2)),
      member(2, 'up', { role: 'coordinator', coordinator: 2, electing: false }),
    ]);
    expect(s).toMatchObject({ up: 3, coordinator: 2, agreeing: 3, agreed: true });
  });

  it('not agreed while every up bot still follows a bot that crashed (before any election replaced it)', () => {
    const s = fleetStatus([
      member(0, 'up', follower(2)),
      member(1, 'up', follower(2)),
      member(2, 'crashed', null),
    ]);
    expect(s).toMatchObject({ up: 2, crashed: 1, coordinator: 2, agreeing: 2, agreed: false });
  });

  it('a paused coordinator is not down; a coordinator outside the fleet is taken on trust; an election in progress is not agreement', () => {
    expect(fleetStatus([member(0, 'up', follower(1)), member(1, 'paused', null)]).agreed).toBe(
      true,
    );
    expect(fleetStatus([member(0, 'up', follower(9)), member(1, 'up', follower(9))]).agreed).toBe(
      true,
    );
    expect(
      fleetStatus([member(0, 'up', follower(1, true)), member(1, 'up', follower(1))]).agreed,
    ).toBe(false);
    expect(fleetStatus([member(0, 'up', follower(null))]).agreed).toBe(false);
  });
});
