// The demo loop's REST routes and the hand-over to a person (server/lab/demo-loop.ts runs the loop).
import express, { type RequestHandler, type Router } from 'express';
import type { DemoLoops } from '../lab/demo-loop.ts';
import type { Counters } from '../lab/counters.ts';
import type { Labs } from '../lab/labs.ts';
import { sendError } from './api-util.ts';

/**
 * GET /labs/:lab/demo (open) and DELETE (instructor), and the hand-over: any other instructor
 * request on a lab (a POST, PUT or DELETE with the token) stops its loop before it is handled, so
 * the loop never crashes a process under the hands of the person who just took the controls.
 * Mount inside /api before the lab routes, after express.json().
 */
export function demoRoutes(
  demo: DemoLoops,
  opts: {
    labs: Labs;
    counters: Counters;
    auth: RequestHandler;
    isInstructor: (req: express.Request) => boolean;
  },
): Router {
  const r = express.Router();
  r.use('/labs/:lab', (req, _res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && opts.isInstructor(req))
      demo.stop(String(req.params['lab']));
    next();
  });
  r.get('/labs/:lab/demo', (req, res) => {
    const name = String(req.params['lab']);
    if (!opts.labs.get(name)) return sendError(res, opts.counters, 'UNKNOWN_LAB');
    res.json(demo.status(name));
  });
  // The stop itself happened in the hand-over above; this answers what is left.
  r.delete('/labs/:lab/demo', opts.auth, (req, res) => {
    const name = String(req.params['lab']);
    if (!opts.labs.get(name)) return sendError(res, opts.counters, 'UNKNOWN_LAB');
    res.json(demo.status(name));
  });
  return r;
}
