// The challenge routes (issue 28, item 6; docs/PROTOCOL.md, "REST API"): the shipped challenges,
// a lab's open challenge and board, the instructor's open/close and replay, and a REST
// submission beside the `submit` frame. Challenges hold no answer key: reads are open.
import express, { type RequestHandler, type Router } from 'express';
import {
  BoardRankSchema,
  OpenChallengeSchema,
  SubmitBodySchema,
} from '@shared/challenges/challenge-api.ts';
import { errorFrame } from '@shared/protocol/errors.ts';
import { parseBody, sendError } from './api-util.ts';
import type { ChallengeCatalog } from '../lab/challenge-catalog.ts';
import type { ChallengeRooms } from '../lab/challenge-room.ts';
import type { Counters } from '../lab/counters.ts';
import type { Lab } from '../lab/lab.ts';
import type { Labs } from '../lab/labs.ts';

interface ChallengeDeps {
  labs: Labs;
  counters: Counters;
  catalog: ChallengeCatalog;
  rooms: ChallengeRooms;
  auth: RequestHandler;
}

/** The lab named in the path, or null with UNKNOWN_LAB sent. */
function labOf(deps: ChallengeDeps, req: express.Request, res: express.Response): Lab | null {
  const lab = deps.labs.get(String(req.params['lab']));
  if (!lab) sendError(res, deps.counters, 'UNKNOWN_LAB');
  return lab ?? null;
}

/** The board rank in the path, or null with BAD_REQUEST sent. */
function rankOf(deps: ChallengeDeps, req: express.Request, res: express.Response): number | null {
  const r = BoardRankSchema.safeParse(req.params['rank']);
  if (!r.success)
    sendError(
      res,
      deps.counters,
      errorFrame('BAD_REQUEST', { message: 'A rank is a whole number from 1', details: ['rank'] }),
    );
  return r.success ? r.data : null;
}

export function challengeRoutes(deps: ChallengeDeps): Router {
  const r = express.Router();
  openCloseSubmit(r, deps);
  boardRoutes(r, deps);
  return r;
}

/** The catalog, the lab's challenge (open, close, read) and a student's submission. */
function openCloseSubmit(r: Router, deps: ChallengeDeps): void {
  const { counters, catalog, rooms, auth } = deps;
  const labIn = (req: express.Request, res: express.Response) => labOf(deps, req, res);
  r.get('/challenges', (_req, res) => {
    res.json({ challenges: catalog.challenges, refused: catalog.refused });
  });

  r.get('/labs/:lab/challenge', (req, res) => {
    const lab = labIn(req, res);
    if (!lab) return;
    // No challenge is a state of the lab, not an error: the class's pages ask every few seconds.
    res.json(rooms.get(lab)?.view() ?? null);
  });

  r.post('/labs/:lab/challenge', auth, (req, res) => {
    const lab = labIn(req, res);
    const body = lab && parseBody(OpenChallengeSchema, req, res, counters);
    if (!lab || !body) return;
    const challenge = catalog.challenges.find((c) => c.id === body.challenge);
    if (!challenge) return sendError(res, counters, 'UNKNOWN_CHALLENGE');
    res.json(rooms.open(lab, challenge).view());
  });

  r.delete('/labs/:lab/challenge', auth, (req, res) => {
    const lab = labIn(req, res);
    if (!lab) return;
    if (!rooms.close(lab)) return sendError(res, counters, 'NO_CHALLENGE');
    res.status(204).end();
  });

  r.post('/labs/:lab/challenge/submissions', (req, res) => {
    const lab = labIn(req, res);
    const body = lab && parseBody(SubmitBodySchema, req, res, counters);
    if (!lab || !body) return;
    const result = rooms.submit(lab, body.name, body.submission, body.session);
    if ('type' in result) return sendError(res, counters, result);
    res.json(result);
  });
}

/** An accepted entry on the board: its trace, its schedule, and its run in the live lab. */
function boardRoutes(r: Router, deps: ChallengeDeps): void {
  const { counters, rooms, auth } = deps;
  const labIn = (req: express.Request, res: express.Response) => labOf(deps, req, res);
  const rankIn = (req: express.Request, res: express.Response) => rankOf(deps, req, res);
  // An accepted schedule, re-run by the relay, as a trace file for /replay?challenge=LAB&rank=N.
  r.get('/labs/:lab/challenge/board/:rank/trace', auth, (req, res) => {
    const lab = labIn(req, res);
    if (!lab) return;
    const room = rooms.get(lab);
    if (!room) return sendError(res, counters, 'NO_CHALLENGE');
    const rank = rankIn(req, res);
    if (rank === null) return;
    const trace = room.trace(rank);
    if (trace === null) return sendError(res, counters, 'NOT_FOUND');
    res.type('application/x-ndjson').send(trace);
  });

  // The same entry's seed and schedule (the instructor reads what the student did).
  r.get('/labs/:lab/challenge/board/:rank', auth, (req, res) => {
    const lab = labIn(req, res);
    if (!lab) return;
    const rank = lab && rankIn(req, res);
    if (!lab || !rank) return;
    const e = rooms.get(lab)?.entry(rank);
    if (!e) return sendError(res, counters, 'NOT_FOUND');
    res.json({ name: e.name, verified: e.verified, seed: e.seed, schedule: e.schedule });
  });

  // The same entry run in the live lab (the lab takes the challenge's set-up, then her faults at
  // their times); the board's `live` says how it goes and whether it reached the target.
  r.post('/labs/:lab/challenge/board/:rank/live', auth, (req, res) => {
    const lab = labIn(req, res);
    const rank = lab && rankIn(req, res);
    if (!lab || !rank) return;
    const result = rooms.replay(lab, rank);
    if ('type' in result) return sendError(res, counters, result);
    res.json(result);
  });
}
