// The REST API under /api: JSON in and out, for scripts, tests and the control panel. Reads are
// open; every change needs `Authorization: Bearer <instructor token>`. Errors come back as the
// protocol's error frame with the HTTP status of the error table.
import express, { type Request, type Response, type Router } from 'express';
import { ALGORITHMS } from '@shared/algorithms/registry.ts';
import { ALGORITHM_NAMES, type ProcessId } from '@shared/algorithms/algorithm.ts';
import {
  CreateLabSchema,
  DEFAULT_PLAY,
  FabricPatchSchema,
  PartitionSchema,
  PlayPatchSchema,
  ProcessIdSchema,
  StepSchema,
  UpdateLabSchema,
} from '@shared/protocol/lab-config.ts';
import type { LabStats } from '@shared/protocol/frames.ts';
import { normalizeJoinCode } from '@shared/protocol/join-code.ts';
import { errorFrame } from '@shared/protocol/errors.ts';
import { buildOpenApi, buildSchema, contractText } from '@shared/protocol/contract.ts';
import { errorHandler, parseBody, requireToken, sendError, tokenCheck } from './api-util.ts';
import type { ServerBots } from '../lab/bots.ts';
import { botRoutes } from './bot-routes.ts';
import type { Cluster } from '../cluster/cluster.ts';
import type { Counters } from '../lab/counters.ts';
import type { DemoLoops } from '../lab/demo-loop.ts';
import { demoRoutes } from './demo-routes.ts';
import type { Lab } from '../lab/lab.ts';
import * as control from '../lab/lab-control.ts';
import { lessonRoutes } from './lesson-api.ts';
import { challengeRoutes } from './challenge-api.ts';
import type { ChallengeCatalog } from '../lab/challenge-catalog.ts';
import type { ChallengeRooms } from '../lab/challenge-room.ts';
import type { LessonCatalog } from '../lab/lesson-catalog.ts';
import type { LessonRooms } from '../lab/lesson-room.ts';
import type { Labs } from '../lab/labs.ts';
import { statusOf } from '../lab/process-table.ts';
import { AddressBuckets, JOIN_LOOKUP_LIMITS } from '../lab/rate-limit.ts';
import { sendTrace } from './trace-http.ts';

interface ApiDeps {
  labs: Labs;
  counters: Counters;
  token: string;
  connections: () => Record<string, number>;
  onError: (err: unknown) => void;
  /** Server-side bots (POST/DELETE /api/labs/:lab/bots); absent: no such routes. */
  bots?: ServerBots;
  /** Set when this relay is one of a cluster (REDIS_URL). */
  cluster?: Cluster;
  /** The shipped lessons and each lab's lesson (server/http/lesson-api.ts). */
  lessons: { catalog: LessonCatalog; rooms: LessonRooms };
  /** The shipped challenges and each lab's open one (server/http/challenge-api.ts). */
  challenges: { catalog: ChallengeCatalog; rooms: ChallengeRooms };
  /** The demo loops; any instructor request on a lab stops its loop. */
  demo: DemoLoops;
}

export function createApi(deps: ApiDeps): Router {
  const { labs, counters } = deps;
  const api = express.Router();
  const auth = requireToken(deps.token, counters);
  const started = Date.now();
  api.use(express.json({ limit: '2mb' }));

  /** Resolves :lab, answering 404 when there is none. */
  const labOf = (req: Request, res: Response): Lab | null => {
    const lab = labs.get(String(req.params['lab']));
    if (!lab) sendError(res, counters, 'UNKNOWN_LAB');
    return lab ?? null;
  };
  const idOf = (req: Request, res: Response, lab: Lab): ProcessId | null => {
    const id = ProcessIdSchema.safeParse(Number(req.params['id']));
    if (id.success && lab.processes.has(id.data)) return id.data;
    sendError(res, counters, 'UNKNOWN_PROCESS');
    return null;
  };

  api.get('/health', (_req, res) => {
    res.json({
      ok: true,
      uptime: Math.round((Date.now() - started) / 1000),
      labs: labs.list().length,
      connections: deps.connections(),
      counters: counters.toJSON(),
      traces: labs.traceUsage(),
    });
  });

  // The wire contract as data, built once from the zod schemas (shared/protocol/contract.ts).
  const schemaText = contractText(buildSchema());
  const openApiText = contractText(buildOpenApi());
  api.get('/schema.json', (_req, res) => void res.type('application/json').send(schemaText));
  api.get('/openapi.json', (_req, res) => void res.type('application/json').send(openApiText));

  api.get('/algorithms', (_req, res) => {
    res.json(
      ALGORITHM_NAMES.map((name) => ({ name, messageTypes: ALGORITHMS[name].messageTypes })),
    );
  });

  const { cluster } = deps;
  if (cluster) {
    // A lab another relay owns: redirect there (like Redis Cluster's MOVED); clients follow it.
    api.use('/labs/:lab', async (req, res, next) => {
      const name = String(req.params['lab']);
      if (labs.get(name)) return next();
      const url = await cluster.locate(name);
      if (!url) return next();
      counters.inc('moved');
      res.redirect(307, new URL(req.originalUrl, url).toString());
    });
    api.get('/cluster', async (_req, res) => {
      res.json({
        clustered: true,
        ...cluster.status(),
        relays: await cluster.relays().catch(() => []),
      });
    });
  } else api.get('/cluster', (_req, res) => void res.json({ clustered: false, relays: [] }));
  api.use(demoRoutes(deps.demo, { labs, counters, auth, isInstructor: tokenCheck(deps.token) }));

  const localSummary = (lab: Lab) => {
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
  };
  api.get('/labs', async (_req, res) => {
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

  api.post('/labs', auth, async (req, res) => {
    const body = parseBody(CreateLabSchema, req, res, counters);
    if (!body) return;
    const created = await labs.create(body);
    if (!created.ok) return sendError(res, counters, created.error);
    res.status(201).json(created.value.snapshot());
  });

  // A class joins by code: the code to the lab's name (the join page then opens the lab). Lookups
  // are limited per address (rate-limit.ts), so the codes cannot be tried at speed.
  const joinLookups = new AddressBuckets(JOIN_LOOKUP_LIMITS, () => performance.now());
  api.get('/join/:code', async (req, res) => {
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
    const name =
      code !== null && deps.cluster ? (await deps.cluster.joinCodes()).get(code) : undefined;
    if (name) return void res.json({ lab: name, joinCode: code });
    sendError(res, counters, errorFrame('UNKNOWN_LAB', { message: 'No lab with that join code' }));
  });

  api.get('/labs/:lab', (req, res) => {
    const lab = labOf(req, res);
    if (lab) res.json(lab.snapshot());
  });

  api.put('/labs/:lab', auth, async (req, res) => {
    const lab = labOf(req, res);
    const body = lab && parseBody(UpdateLabSchema, req, res, counters);
    if (!lab || !body) return;
    const r = control.update(lab, body);
    if (!r.ok) return sendError(res, counters, r.error);
    await labs.save(lab);
    res.json(lab.snapshot());
  });

  api.delete('/labs/:lab', auth, async (req, res) => {
    if (!(await labs.remove(String(req.params['lab']))))
      return sendError(res, counters, 'UNKNOWN_LAB');
    res.status(204).end();
  });

  api.put('/labs/:lab/fabric', auth, async (req, res) => {
    const lab = labOf(req, res);
    const body = lab && parseBody(FabricPatchSchema, req, res, counters);
    if (!lab || !body) return;
    const fabric = control.setFabric(lab, body);
    await labs.save(lab);
    res.json(fabric);
  });

  // Hand play for a class (docs/RUN_A_CLASS.md): students by hand, chosen ids by hand, hints.
  api.put('/labs/:lab/play', auth, async (req, res) => {
    const lab = labOf(req, res);
    const body = lab && parseBody(PlayPatchSchema, req, res, counters);
    if (!lab || !body) return;
    const play = { ...DEFAULT_PLAY, ...lab.config.play, ...body };
    lab.setPlay({ ...play, hand: play.hand.filter((id) => lab.processes.has(id)) });
    await labs.save(lab);
    res.json(lab.config.play);
  });

  api.post('/labs/:lab/partition', auth, (req, res) => {
    const lab = labOf(req, res);
    const body = lab && parseBody(PartitionSchema, req, res, counters);
    if (!lab || !body) return;
    const r = control.partition(lab, body.groups);
    if (!r.ok) return sendError(res, counters, r.error);
    res.json({ groups: r.value });
  });

  api.delete('/labs/:lab/partition', auth, (req, res) => {
    const lab = labOf(req, res);
    if (!lab) return;
    control.partition(lab, null);
    res.json({ groups: null });
  });

  const processControls = {
    crash: control.crash,
    recover: control.recover,
    elect: control.elect,
    pause: control.pauseProcess,
    resume: control.resumeProcess,
  };
  for (const [action, act] of Object.entries(processControls)) {
    api.post(`/labs/:lab/processes/:id/${action}`, auth, (req, res) => {
      const lab = labOf(req, res);
      const id = lab && idOf(req, res, lab);
      if (!lab || id === null) return;
      const r = act(lab, id);
      if (!r.ok) return sendError(res, counters, r.error);
      res.json(r.value);
    });
  }

  api.get('/labs/:lab/processes/:id', (req, res) => {
    const lab = labOf(req, res);
    const id = lab && idOf(req, res, lab);
    if (lab && id !== null) res.json(lab.info(lab.processes.get(id)!));
  });

  // The failing run of a student's latest grade, as the trace file her tab sent (the class board's link to replay).
  api.get('/labs/:lab/processes/:id/grade-trace', (req, res) => {
    const lab = labOf(req, res);
    const id = lab && idOf(req, res, lab);
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

  api.post('/labs/:lab/pause', auth, (req, res) => {
    const lab = labOf(req, res);
    if (!lab) return;
    control.pause(lab);
    res.json({ paused: true, inFlight: lab.scheduler.size });
  });

  api.post('/labs/:lab/resume', auth, (req, res) => {
    const lab = labOf(req, res);
    if (!lab) return;
    control.resume(lab);
    res.json({ paused: false, inFlight: lab.scheduler.size });
  });

  api.post('/labs/:lab/step', auth, (req, res) => {
    const lab = labOf(req, res);
    const body = lab && parseBody(StepSchema, req, res, counters);
    if (!lab || !body) return;
    const r = control.step(lab, body);
    if (!r.ok) return sendError(res, counters, r.error);
    res.json(r.value);
  });

  api.get('/labs/:lab/inflight', (req, res) => {
    const lab = labOf(req, res);
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

  api.post('/labs/:lab/reset', auth, async (req, res) => {
    const lab = labOf(req, res);
    if (!lab) return;
    const archived = await control.reset(lab);
    res.json({
      snapshot: lab.snapshot(),
      archived: archived ? archived.split(/[\\/]/).pop() : null,
    });
  });

  api.get('/labs/:lab/stats', (req, res) => {
    const lab = labOf(req, res);
    const limit = Number(req.query['links'] ?? 5000);
    if (lab) res.json(labStats(lab, counters, Number.isFinite(limit) && limit >= 0 ? limit : 5000));
  });

  api.get('/labs/:lab/trace', async (req, res) => {
    const lab = labOf(req, res);
    if (lab) await sendTrace(lab, req, res, counters);
  });

  if (deps.bots) api.use(botRoutes(deps.bots, { counters, auth }));
  api.use(
    lessonRoutes({ labs, counters, ...deps.lessons, auth, isInstructor: tokenCheck(deps.token) }),
  );
  api.use(challengeRoutes({ labs, counters, ...deps.challenges, auth }));
  api.use((_req, res) => sendError(res, counters, 'NOT_FOUND'));
  api.use(errorHandler(counters, deps.onError));
  return api;
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
