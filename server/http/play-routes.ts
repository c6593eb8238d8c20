// How a lab plays: hand play for a class (docs/RUN_A_CLASS.md), pause and resume, releasing held
// messages one by one, and the page of messages in flight.
import express, { type Router } from 'express';
import { DEFAULT_PLAY, PlayPatchSchema, StepSchema } from '@shared/protocol/lab-config.ts';
import * as control from '../lab/lab-control.ts';
import { labOf, parseBody, sendError, type RouteDeps } from './api-util.ts';

export function playRoutes(deps: RouteDeps): Router {
  const { labs, counters, auth } = deps;
  const r = express.Router();
  // Students by hand, chosen ids by hand, hints.
  r.put('/labs/:lab/play', auth, async (req, res) => {
    const lab = labOf(deps, req, res);
    const body = lab && parseBody(PlayPatchSchema, req, res, counters);
    if (!lab || !body) return;
    const play = { ...DEFAULT_PLAY, ...lab.config.play, ...body };
    lab.setPlay({ ...play, hand: play.hand.filter((id) => lab.processes.has(id)) });
    await labs.save(lab);
    res.json(lab.config.play);
  });

  r.post('/labs/:lab/pause', auth, async (req, res) => {
    const lab = labOf(deps, req, res);
    if (!lab) return;
    control.pause(lab);
    await labs.stateSaved(lab.name);
    res.json({ paused: true, inFlight: lab.scheduler.size });
  });

  r.post('/labs/:lab/resume', auth, async (req, res) => {
    const lab = labOf(deps, req, res);
    if (!lab) return;
    control.resume(lab);
    await labs.stateSaved(lab.name);
    res.json({ paused: false, inFlight: lab.scheduler.size });
  });

  r.post('/labs/:lab/step', auth, (req, res) => {
    const lab = labOf(deps, req, res);
    const body = lab && parseBody(StepSchema, req, res, counters);
    if (!lab || !body) return;
    const released = control.release(lab, body);
    if (!released.ok) return sendError(res, counters, released.error);
    res.json(released.value);
  });

  r.get('/labs/:lab/inflight', (req, res) => {
    const lab = labOf(deps, req, res);
    if (!lab) return;
    // Paged and capped: a lab may hold half a million messages; a page costs O(page) to read.
    const limit = Math.min(
      control.INFLIGHT_PAGE_MAX,
      Math.max(1, Number(req.query['limit']) || 200),
    );
    const offset = Math.min(
      control.INFLIGHT_OFFSET_MAX,
      Math.max(0, Math.floor(Number(req.query['offset']) || 0)),
    );
    const messages = control.inflight(lab, limit, offset);
    const next =
      offset + messages.length < Math.min(lab.scheduler.size, control.INFLIGHT_OFFSET_MAX)
        ? offset + messages.length
        : null;
    res.json({ paused: lab.scheduler.paused, total: lab.scheduler.size, offset, next, messages });
  });
  return r;
}
