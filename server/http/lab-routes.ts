// The labs as a resource: list (the cluster's too), create, read, update, delete, reset, and the
// join-code lookup a class uses to find its lab.
import express, { type Router } from 'express';
import { CreateLabSchema, UpdateLabSchema } from '@shared/protocol/lab-config.ts';
import { normalizeJoinCode } from '@shared/protocol/join-code.ts';
import { errorFrame } from '@shared/protocol/errors.ts';
import type { Cluster } from '../cluster/cluster-member.ts';
import type { Lab } from '../lab/lab.ts';
import * as control from '../lab/lab-control.ts';
import { statusOf } from '../lab/process-table.ts';
import { AddressBuckets, JOIN_LOOKUP_LIMITS } from '../lab/rate-limit.ts';
import { labOf, parseBody, sendError, type RouteDeps } from './api-util.ts';

export function labRoutes(deps: RouteDeps, cluster: Cluster | undefined): Router {
  const { labs, counters, auth } = deps;
  const r = express.Router();
  r.get('/labs', async (_req, res) => {
    const local = labs.list().map((lab) => ({
      ...localSummary(lab),
      ...(cluster ? { owner: cluster.relayId, url: cluster.opts.publicUrl } : {}),
    }));
    if (!cluster) return res.json(local);
    // Every lab of the cluster: the ones here in full, the others from the directory.
    const others = await cluster.overview().catch(() => []);
    const remote = others
      .filter((o) => !labs.get(o.config.name))
      .map((o) => ({
        name: o.config.name,
        algorithm: o.config.algorithm,
        size: o.config.ids.length,
        processes: null,
        paused: null,
        now: null,
        owner: o.owner,
        url: o.url,
      }));
    res.json([...local, ...remote].sort((a, b) => a.name.localeCompare(b.name)));
  });

  r.post('/labs', auth, async (req, res) => {
    const body = parseBody(CreateLabSchema, req, res, counters);
    if (!body) return;
    const created = await labs.create(body);
    if (!created.ok) return sendError(res, counters, created.error);
    res.status(201).json(created.value.snapshot());
  });

  r.get('/join/:code', joinLookup(deps, cluster));

  r.get('/labs/:lab', (req, res) => {
    const lab = labOf(deps, req, res);
    if (lab) res.json(lab.snapshot());
  });

  r.put('/labs/:lab', auth, async (req, res) => {
    const lab = labOf(deps, req, res);
    const body = lab && parseBody(UpdateLabSchema, req, res, counters);
    if (!lab || !body) return;
    const updated = control.update(lab, body);
    if (!updated.ok) return sendError(res, counters, updated.error);
    await labs.save(lab);
    res.json(lab.snapshot());
  });

  r.delete('/labs/:lab', auth, async (req, res) => {
    if (!(await labs.remove(String(req.params['lab']))))
      return sendError(res, counters, 'UNKNOWN_LAB');
    res.status(204).end();
  });

  r.post('/labs/:lab/reset', auth, async (req, res) => {
    const lab = labOf(deps, req, res);
    if (!lab) return;
    const archived = await control.reset(lab);
    res.json({
      snapshot: lab.snapshot(),
      archived: archived ? archived.split(/[\\/]/).pop() : null,
    });
  });

  // The work schedule's job from a fresh task list, the coordinator kept (docs/WORK_SCHEDULE.md).
  r.post('/labs/:lab/job/restart', auth, (req, res) => {
    const lab = labOf(deps, req, res);
    if (!lab) return;
    const restarted = control.restartJob(lab);
    if (!restarted.ok) return sendError(res, counters, restarted.error);
    res.json(restarted.value);
  });
  return r;
}

function localSummary(lab: Lab) {
  const counts = { up: 0, crashed: 0, absent: 0 };
  for (const e of lab.processes.list()) counts[statusOf(e)]++;
  return {
    name: lab.name,
    algorithm: lab.config.algorithm,
    size: lab.config.ids.length,
    processes: counts,
    paused: lab.scheduler.paused,
    now: lab.now(),
  };
}

/**
 * GET /join/:code: a class joins by code, the code to the lab's name (the join page then opens
 * the lab). Lookups are limited per address (rate-limit.ts), so the codes cannot be tried at speed.
 */
function joinLookup(deps: RouteDeps, cluster: Cluster | undefined): express.RequestHandler {
  const { labs, counters } = deps;
  const joinLookups = new AddressBuckets(JOIN_LOOKUP_LIMITS, () => performance.now());
  return async (req, res) => {
    if (!joinLookups.take(req.ip ?? req.socket.remoteAddress ?? '')) {
      res.setHeader('Retry-After', '1');
      return sendError(
        res,
        counters,
        errorFrame('RATE_LIMITED', {
          message: 'Too many join-code lookups from this address; try again in a second',
        }),
      );
    }
    const code = normalizeJoinCode(String(req.params['code']));
    const lab = code === null ? undefined : labs.byCode(code);
    if (lab) return void res.json({ lab: lab.name, joinCode: lab.joinCode });
    // In a cluster the code may name a lab another relay runs: its page there redirects to it.
    const name = code !== null && cluster ? (await cluster.joinCodes()).get(code) : undefined;
    if (name) return void res.json({ lab: name, joinCode: code });
    sendError(res, counters, errorFrame('UNKNOWN_LAB', { message: 'No lab with that join code' }));
  };
}
