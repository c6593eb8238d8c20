// One process of a lab: crash, recover, elect, pause and resume it (instructor), read it, and the
// failing run of its latest grade.
import express, { type Router } from 'express';
import { errorFrame } from '@shared/protocol/errors.ts';
import * as control from '../lab/lab-control.ts';
import { idOf, labOf, sendError, type RouteDeps } from './api-util.ts';

const PROCESS_CONTROLS = {
  crash: control.crash,
  recover: control.recover,
  elect: control.elect,
  pause: control.pauseProcess,
  resume: control.resumeProcess,
};

export function processRoutes(deps: RouteDeps): Router {
  const { counters, auth } = deps;
  const r = express.Router();
  for (const [action, act] of Object.entries(PROCESS_CONTROLS)) {
    r.post(`/labs/:lab/processes/:id/${action}`, auth, async (req, res) => {
      const lab = labOf(deps, req, res);
      const id = lab && idOf(deps, req, res, lab);
      if (!lab || id === null) return;
      const done = act(lab, id);
      if (!done.ok) return sendError(res, counters, done.error);
      await deps.labs.stateSaved(lab.name);
      res.json(done.value);
    });
  }

  r.get('/labs/:lab/processes/:id', (req, res) => {
    const lab = labOf(deps, req, res);
    const id = lab && idOf(deps, req, res, lab);
    if (lab && id !== null) res.json(lab.info(lab.processes.get(id)!));
  });

  // The failing run of a student's latest grade, as the trace file her tab sent (the class
  // board's link to replay).
  r.get('/labs/:lab/processes/:id/grade-trace', (req, res) => {
    const lab = labOf(deps, req, res);
    const id = lab && idOf(deps, req, res, lab);
    if (!lab || id === null) return;
    const trace = lab.processes.get(id)!.grade?.trace;
    if (!trace)
      return sendError(
        res,
        counters,
        errorFrame('NOT_FOUND', { message: 'This process has sent no failing run with its grade' }),
      );
    res.type('application/x-ndjson').send(trace);
  });
  return r;
}
