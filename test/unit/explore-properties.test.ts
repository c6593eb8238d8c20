import { describe, expect, it } from 'vitest';
import type { Report } from '@shared/algorithms/algorithm.ts';
import { checkAgreement, checkSafety } from '@shared/analysis/properties.ts';

const r = (role: string, coordinator: number | null, term?: number): Report => ({
  role,
  coordinator,
  electing: role === 'electing' || role === 'candidate',
  ...(term === undefined ? {} : { term }),
});

describe('properties', () => {
  it('safety: two live coordinators at once break it (000: only one process in the leader state); a crashed one does not count', () => {
    expect(
      checkSafety([0, 1, 2], {
        0: r('follower', 2),
        1: r('coordinator', 1),
        2: r('coordinator', 2),
      }),
    ).toMatchObject({ property: 'safety', processes: [1, 2] });
    expect(
      checkSafety([0, 1], { 0: r('follower', 1), 1: r('coordinator', 1), 2: r('coordinator', 2) }),
    ).toBeNull();
  });

  it('safety: term-based algorithms may have two leaders of different terms, never two in one term (Raft Figure 3, Election Safety)', () => {
    expect(
      checkSafety([0, 1, 2], {
        0: r('leader', 0, 2),
        1: r('leader', 1, 3),
        2: r('follower', 1, 3),
      }),
    ).toBeNull();
    expect(
      checkSafety([0, 1, 2], {
        0: r('leader', 0, 3),
        1: r('leader', 1, 3),
        2: r('follower', 1, 3),
      }),
    ).toMatchObject({ processes: [0, 1], message: '0 and 1 both lead in term 3' });
    expect(checkSafety([0, 1], { 0: r('master', 0), 1: r('master', 1) })).not.toBeNull();
  });

  it('agreement: Bully and the rings must end on the highest live id (002: e_i = P, the non-crashed process with highest id)', () => {
    const all = (c: number) => ({
      0: r('follower', c),
      1: r('follower', c),
      2: r(c === 2 ? 'coordinator' : 'follower', c),
      3: r(c === 3 ? 'coordinator' : 'follower', c),
    });
    expect(checkAgreement('bully', [0, 1, 2], all(2))).toBeNull();
    expect(checkAgreement('ring', [0, 1, 2], all(3))).toMatchObject({
      property: 'agreement',
      message: 'all follow 3, which is down',
    });
    expect(checkAgreement('bully', [0, 1, 2, 3], all(2))).toMatchObject({
      message: 'all follow 2, but the highest live id is 3',
    });
  });

  it('agreement: a split belief names the minority; no belief at all is a violation too', () => {
    const v = checkAgreement('bully', [0, 1, 2], {
      0: r('follower', 1),
      1: r('coordinator', 1),
      2: r('coordinator', 2),
    });
    expect(v).toMatchObject({ property: 'agreement' });
    expect(
      checkAgreement('bully', [0, 1], { 0: r('electing', null), 1: r('electing', null) }),
    ).toMatchObject({ message: 'no live process knows a coordinator' });
  });

  it('agreement: Raft and the emergent election need one live leader all follow, not the highest id', () => {
    expect(
      checkAgreement('raft', [0, 1, 2], {
        0: r('leader', 0, 2),
        1: r('follower', 0, 2),
        2: r('follower', 0, 2),
      }),
    ).toBeNull();
    expect(
      checkAgreement('emergent', [0, 1, 2], {
        0: r('slave', 1),
        1: r('slave', 1),
        2: r('idle', 1),
      }),
    ).toMatchObject({ message: 'all follow 1, which does not claim to lead (slave)' });
  });
});
