// The REST API under /api: JSON in and out, for scripts, tests and the control panel. Reads are
// open; every change needs `Authorization: Bearer <instructor token>`. Errors come back as the
// protocol's error frame with the HTTP status of the error table. Each resource's routes are in
// a module of their own (*-routes.ts); this file puts them in order.
import express, { type Router } from 'express';
import { errorHandler, requireToken, sendError, tokenCheck, type RouteDeps } from './api-util.ts';
import type { ServerBots } from '../lab/bots.ts';
import { botRoutes } from './bot-routes.ts';
import type { Cluster } from '../cluster/cluster-member.ts';
import { clusterRoutes } from './cluster-routes.ts';
import type { Counters } from '../lab/counters.ts';
import type { DemoLoops } from '../lab/demo-loop.ts';
import { demoRoutes } from './demo-routes.ts';
import { fabricRoutes } from './fabric-routes.ts';
import { labRoutes } from './lab-routes.ts';
import { lessonRoutes } from './lesson-api.ts';
import { challengeRoutes } from './challenge-api.ts';
import type { ChallengeCatalog } from '../lab/challenge-catalog.ts';
import type { ChallengeRooms } from '../lab/challenge-room.ts';
import type { LessonCatalog } from '../lab/lesson-catalog.ts';
import type { LessonRooms } from '../lab/lesson-room.ts';
import type { Labs } from '../lab/labs.ts';
import { playRoutes } from './play-routes.ts';
import { processRoutes } from './process-routes.ts';
import { schemaRoutes } from './schema-routes.ts';
import { statsRoutes } from './stats-routes.ts';
import { traceRoutes } from './trace-routes.ts';

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
  const isInstructor = tokenCheck(deps.token);
  const routeDeps: RouteDeps = { labs, counters, auth };
  const started = Date.now();
  api.use(express.json({ limit: '2mb' }));

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
  api.use(schemaRoutes());
  // Order matters from here: the cluster's redirect and the demo loop's hand-over see a
  // /labs/:lab request before the routes that answer it.
  api.use(clusterRoutes(deps.cluster, routeDeps));
  api.use(demoRoutes(deps.demo, { labs, counters, auth, isInstructor }));
  api.use(labRoutes(routeDeps, deps.cluster));
  api.use(fabricRoutes(routeDeps));
  api.use(playRoutes(routeDeps));
  api.use(processRoutes(routeDeps));
  api.use(statsRoutes(routeDeps));
  api.use(traceRoutes(routeDeps));
  if (deps.bots) api.use(botRoutes(deps.bots, { counters, auth }));
  api.use(lessonRoutes({ labs, counters, ...deps.lessons, auth, isInstructor }));
  api.use(challengeRoutes({ labs, counters, ...deps.challenges, auth }));
  api.use((_req, res) => sendError(res, counters, 'NOT_FOUND'));
  api.use(errorHandler(counters, deps.onError));
  return api;
}
