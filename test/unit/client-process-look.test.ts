// processLook (client/src/utils/process-look.ts): every visual cue of a process and its text twin.
import { describe, expect, it } from 'vitest';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { POOL_ROLES, processLook, ROLE_FILL } from '../../client/src/utils/process-look.ts';
import { GROUP_COLOURS, STATUS_COLOURS } from '../../client/src/utils/message-style.ts';
import { whoDisagrees } from '../../client/src/utils/who-disagrees.ts';

const up = (id: number, over: Partial<ProcessInfo> = {}): ProcessInfo => ({
  id,
  name: null,
  status: 'up',
  kind: 'human',
  transport: 'ws',
  report: { role: 'follower', coordinator: 9, electing: false },
  group: null,
  ...over,
});

describe('processLook', () => {
  const calm = whoDisagrees([]);

  it('an id nobody holds is dashed, says "absent" and believes nothing, whatever its last report', () => {
    const l = processLook(up(3, { status: 'absent', kind: undefined }), calm, null);
    expect(l).toMatchObject({
      dashed: true,
      crossed: false,
      fill: ROLE_FILL.absent,
      stroke: STATUS_COLOURS.absent,
      role: '-',
      believes: '-',
      status: 'absent',
      kind: 'nobody',
      halo: null,
      leads: false,
    });
  });

  it('a crashed process is crossed out and grey, keeps its shape and partition ring, and leads nothing', () => {
    const p = up(5, { status: 'crashed', kind: 'bot', group: 1 });
    const l = processLook(p, calm, 0, new Set([5]));
    expect(l).toMatchObject({
      shape: 'square',
      crossed: true,
      fill: ROLE_FILL.crashed,
      stroke: STATUS_COLOURS.crashed,
      role: 'crashed',
      status: 'crashed',
      rival: false,
      ring: GROUP_COLOURS[1],
    });
  });

  it('fill by role: coordinator, then electing, then the pool, else plain', () => {
    const look = (report: ProcessInfo['report']) => processLook(up(1, { report }), calm, null);
    expect(look({ role: 'leader', coordinator: 1, electing: true }).fill).toBe(
      ROLE_FILL.coordinator,
    );
    expect(look({ role: 'follower', coordinator: null, electing: true }).fill).toBe(
      ROLE_FILL.electing,
    );
    const pool = [...POOL_ROLES][0]!;
    expect(look({ role: pool, coordinator: 2, electing: false }).fill).toBe(ROLE_FILL.pool);
    expect(look({ role: 'follower', coordinator: 2, electing: false }).fill).toBe(ROLE_FILL.other);
    expect(look(null)).toMatchObject({ role: 'starting', believes: '?', fill: ROLE_FILL.other });
    expect(look({ role: 'follower', coordinator: null, electing: false }).believes).toBe('none');
  });

  it('the halo says "disagrees" before "stale", and nothing for a process in agreement', () => {
    const agreement = { ...calm, disagree: new Set([2, 3]), stale: new Set([3, 4]) };
    expect(processLook(up(1), agreement, null).halo).toBeNull();
    expect(processLook(up(2), agreement, null).halo).toBe('disagrees');
    expect(processLook(up(3), agreement, null).halo).toBe('disagrees');
    expect(processLook(up(4), agreement, null).halo).toBe('stale');
  });

  it('an up process outside the main group is "cut off"; in it, it names its group; unpartitioned, just "up"', () => {
    expect(processLook(up(1, { group: 0 }), calm, 0).status).toBe('up (group 1)');
    expect(processLook(up(1, { group: 2 }), calm, 0).status).toBe('up, cut off (group 3)');
    expect(processLook(up(1), calm, null)).toMatchObject({ status: 'up', ring: null });
  });
});
