// GET /labs/:lab/stats: the lab's figures (docs/PROTOCOL.md, LabStats), read from its journal,
// its checker, its trace store and its intake.
import express, { type Router } from 'express';
import type { LabStats } from '@shared/protocol/frames.ts';
import type { Counters } from '../lab/counters.ts';
import type { Lab } from '../lab/lab.ts';
import { statusOf } from '../lab/process-table.ts';
import { labOf, type RouteDeps } from './api-util.ts';

export function statsRoutes(deps: RouteDeps): Router {
  const r = express.Router();
  r.get('/labs/:lab/stats', (req, res) => {
    const lab = labOf(deps, req, res);
    const limit = Number(req.query['links'] ?? 5000);
    if (lab)
      res.json(labStats(lab, deps.counters, Number.isFinite(limit) && limit >= 0 ? limit : 5000));
  });
  return r;
}

export function labStats(lab: Lab, counters: Counters, linkLimit = 5000): LabStats {
  const processes = { up: 0, crashed: 0, absent: 0 };
  const coordinators: Record<string, number> = {};
  for (const e of lab.processes.list()) {
    const status = statusOf(e);
    processes[status]++;
    if (status !== 'up' || !e.report) continue;
    const key = e.report.coordinator === null ? 'none' : String(e.report.coordinator);
    coordinators[key] = (coordinators[key] ?? 0) + 1;
  }
  const store = lab.deps.store;
  return {
    ...lab.stats.snapshot(
      lab.now(),
      { coordinators, processes, relay: counters.toJSON() },
      linkLimit,
    ),
    checker: lab.checker.summary(),
    trace: {
      bytes: store.size,
      lean: store.lean,
      unrecorded: store.unrecorded,
      behind: store.behind,
      full: store.full,
      waiting: store.backlog,
      unwritten: Object.fromEntries(lab.gate.unwritten),
    },
    refused: lab.intake.refused.toJSON(),
  };
}
