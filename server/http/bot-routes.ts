// The server bots' REST routes (server/lab/bots.ts runs the bots): GET lists a lab's server bots,
// POST tops the lab up, DELETE removes them.
import express, { type RequestHandler, type Router } from 'express';
import { BotsSchema } from '@shared/protocol/lab-config.ts';
import type { Counters } from '../lab/counters.ts';
import type { ServerBots } from '../lab/bots.ts';
import { parseBody, sendError } from './api-util.ts';

/** The REST routes: GET (open), POST and DELETE (instructor) /labs/:lab/bots. Mount inside /api, after express.json(). */
export function botRoutes(
  bots: ServerBots,
  opts: { counters: Counters; auth: RequestHandler },
): Router {
  const r = express.Router();
  const { counters, auth } = opts;
  r.get('/labs/:lab/bots', (req, res) => {
    const lab = String(req.params['lab']);
    if (!bots.hasLab(lab)) return sendError(res, counters, 'UNKNOWN_LAB');
    res.json({ lab, ids: bots.list(lab) });
  });
  r.post('/labs/:lab/bots', auth, async (req, res) => {
    const body = parseBody(BotsSchema, req, res, counters);
    if (!body) return;
    const started = await bots.start(String(req.params['lab']), body);
    if (!started.ok) return sendError(res, counters, started.error);
    res.status(201).json(started.value);
  });
  r.delete('/labs/:lab/bots', auth, (req, res) => {
    const lab = String(req.params['lab']);
    if (!bots.hasLab(lab)) return sendError(res, counters, 'UNKNOWN_LAB');
    res.json({ lab, stopped: bots.stop(lab) });
  });
  return r;
}
