// The experiment's --live mode against a real relay on 127.0.0.1 port 0 (its server bots, real
// timers). Generous timing: a busy test machine must not break the synchrony Bully assumes. The
// live run's M (liveProcessingMs: T here) covers the relay's scheduling and stalls up to 500 ms on
// every hop; with M = 10 ms OKs reached their electors just past UB, and 2 and 1 declared too
// (6 COORDINATORs, not N - 2 = 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SWEEP } from '@shared/experiments/experiment.ts';
import { fetchDeps } from '@shared/lab-client/experiment-live.ts';
import { expectedFor } from '@shared/analysis/formulas.ts';
import { parseExperimentCli, runExperimentLive } from '../../scripts/experiment.ts';
import { startRelay, TOKEN, type Harness } from '../helpers/relay-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startRelay();
});
afterAll(async () => {
  await h.close();
});

describe('experiment --live', () => {
  it('experiment --live: Bully worst case on the relay sends the same N(N-1)/2 ELECTIONs, OKs and N-2 COORDINATORs as the simulator (002, 003)', async () => {
    const spec = {
      ...DEFAULT_SWEEP,
      algorithms: ['bully' as const],
      nodes: [5],
      cases: ['worst' as const],
      delay: 500,
    };
    const rows = await runExperimentLive(spec, fetchDeps(h.url, TOKEN));
    expect(rows).toHaveLength(1);
    const r = rows[0]!;
    expect(r.initiator).toBe(0);
    expect(r.agreed).toBe(true);
    expect(r.safe).toBe(true);
    expect(r.coordinator).toBe(3);
    expect({ ELECTION: 0, OK: 0, COORDINATOR: 0, ...r.messages }).toEqual(
      expectedFor('bully', 5, 0).messages,
    );
    // Real time: at least the simulator's 4T + M, and not wildly more.
    expect(r.electionTimeT!).toBeGreaterThanOrEqual(4);
    expect(r.electionTimeT!).toBeLessThan(12);
    // The lab is removed afterwards.
    expect((await h.api('GET', '/api/labs')).body).toEqual([]);
  }, 60_000);

  it('experiment --live: the CLI needs a token and an http URL', () => {
    const saved = process.env['ELECTION_LAB_TOKEN'];
    delete process.env['ELECTION_LAB_TOKEN'];
    try {
      expect(() => parseExperimentCli(['--live', 'http://127.0.0.1:1'])).toThrow(/token/);
      expect(() => parseExperimentCli(['--live', 'ftp://x', '--token', 't'])).toThrow(/URL/);
      expect(parseExperimentCli(['--live', 'http://127.0.0.1:1', '--token', 't']).live).toEqual({
        url: 'http://127.0.0.1:1',
        token: 't',
      });
    } finally {
      if (saved !== undefined) process.env['ELECTION_LAB_TOKEN'] = saved;
    }
  });
});
