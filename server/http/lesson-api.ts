// The lesson routes (issue 28; docs/PROTOCOL.md, "REST API"): the shipped lessons, a lab's lesson
// as the class sees it, and the instructor's moves. Reads are open; the answers by name only
// with the token.
import express, { type RequestHandler, type Router } from 'express';
import { LESSON_ACTIONS, type LessonAction } from '@shared/lessons/lesson-class.ts';
import { SetLessonBodySchema } from '@shared/lessons/lesson-api.ts';
import { parseLesson, type Lesson } from '@shared/lessons/lesson-schema.ts';
import { errorFrame, type ErrorFrame } from '@shared/protocol/errors.ts';
import { parseBody, sendError } from './api-util.ts';
import type { Counters } from '../lab/counters.ts';
import type { Lab } from '../lab/lab.ts';
import type { LessonCatalog } from '../lab/lesson-catalog.ts';
import type { LessonRooms } from '../lab/lesson-room.ts';
import type { Labs } from '../lab/labs.ts';

interface LessonDeps {
  labs: Labs;
  counters: Counters;
  catalog: LessonCatalog;
  rooms: LessonRooms;
  auth: RequestHandler;
  /** True when the request carries the instructor token. */
  isInstructor: (req: express.Request) => boolean;
}

export function lessonRoutes(deps: LessonDeps): Router {
  const { labs, counters, catalog, rooms, auth } = deps;
  const r = express.Router();
  const labOf = (req: express.Request, res: express.Response): Lab | null => {
    const lab = labs.get(String(req.params['lab']));
    if (!lab) sendError(res, counters, 'UNKNOWN_LAB');
    return lab ?? null;
  };

  // The reveals (expected values, formulas) are the answer key: only the instructor reads them
  // here; the class sees each step's title and question.
  r.get('/lessons', (req, res) => {
    res.json({ lessons: shipped(catalog, deps.isInstructor(req)), refused: catalog.refused });
  });

  r.get('/labs/:lab/lesson', (req, res) => {
    const lab = labOf(req, res);
    if (!lab) return;
    // No lesson is a state of the lab, not an error: the class's pages ask once a second.
    res.json(rooms.get(lab)?.view(deps.isInstructor(req)) ?? null);
  });

  // The step's run as a trace file, for /replay?lesson=LAB.
  r.get('/labs/:lab/lesson/trace', (req, res) => {
    const lab = labOf(req, res);
    if (!lab) return;
    const room = rooms.get(lab);
    if (!room) return sendError(res, counters, 'NO_LESSON');
    const trace = room.runTrace(deps.isInstructor(req));
    if (typeof trace !== 'string') return sendError(res, counters, trace);
    res.type('application/x-ndjson').send(trace);
  });

  r.post('/labs/:lab/lesson', auth, (req, res) => {
    const lab = labOf(req, res);
    const body = lab && parseBody(SetLessonBodySchema, req, res, counters);
    if (!lab || !body) return;
    const asked = lessonOf(body.lesson, catalog);
    if (!asked.ok) return sendError(res, counters, asked.error);
    const refused = rooms.begin(lab, asked.lesson, body.step ?? 0);
    if (refused) return sendError(res, counters, refused);
    res.json(rooms.get(lab)!.view(true));
  });

  r.delete('/labs/:lab/lesson', auth, (req, res) => {
    const lab = labOf(req, res);
    if (!lab) return;
    if (!rooms.end(lab)) return sendError(res, counters, 'NO_LESSON');
    res.status(204).end();
  });

  r.post('/labs/:lab/lesson/:action', auth, (req, res) => {
    const lab = labOf(req, res);
    if (!lab) return;
    const action = String(req.params['action']);
    if (!(LESSON_ACTIONS as readonly string[]).includes(action))
      return sendError(
        res,
        counters,
        errorFrame('NOT_FOUND', {
          message: `No lesson action "${action.slice(0, 16)}"; they are ${LESSON_ACTIONS.join(', ')}`,
        }),
      );
    const room = rooms.get(lab);
    if (!room) return sendError(res, counters, 'NO_LESSON');
    const refused = room.act(action as LessonAction);
    if (refused) return sendError(res, counters, refused);
    if (action === 'run' && room.traceDropped) counters.inc('lesson-trace-too-large');
    res.json(room.view(true));
  });

  return r;
}

/** The shipped lessons: whole for the instructor; for the class, each step's title and question. */
function shipped(catalog: LessonCatalog, full: boolean) {
  if (full) return catalog.lessons;
  return catalog.lessons.map((l) => ({
    ...l,
    steps: l.steps.map((s) => ({
      title: s.title,
      ...(s.question ? { question: s.question } : {}),
    })),
  }));
}

/** The lesson a POST names: a shipped one by id, or her own checked against the lesson schema. */
function lessonOf(
  asked: unknown,
  catalog: LessonCatalog,
): { ok: true; lesson: Lesson } | { ok: false; error: ErrorFrame } {
  if (typeof asked === 'string') {
    const lesson = catalog.lessons.find((l) => l.id === asked);
    return lesson ? { ok: true, lesson } : { ok: false, error: errorFrame('UNKNOWN_LESSON') };
  }
  const parsed = parseLesson(asked);
  if (parsed.ok) return { ok: true, lesson: parsed.lesson };
  const error = errorFrame('BAD_REQUEST', {
    message: 'The lesson does not match the lesson schema (docs/schema.json, Lesson)',
    details: parsed.errors.map((e) => `lesson.${e}`),
  });
  return { ok: false, error };
}
