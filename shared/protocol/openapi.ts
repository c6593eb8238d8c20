// OpenAPI 3.1 of the REST API, one path builder per resource; request bodies are the zod schemas
// the API validates with (shared/protocol/contract.ts turns them into JSON Schema). `npm run
// contract` writes it to docs/openapi.json; the relay serves it at /api/openapi.json.
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './errors.ts';
import {
  BotsSchema,
  CreateLabSchema,
  FabricPatchSchema,
  LabConfigSchema,
  PartitionSchema,
  PlayPatchSchema,
  StepSchema,
  UpdateLabSchema,
} from './lab-config.ts';
import { PROTOCOL_VERSION } from './frames.ts';
import { LabSnapshotSchema, ProcessInfoSchema } from './server-frames.ts';
import { DemoStatusSchema, LessonViewSchema, SetLessonSchema } from '../lessons/lesson-api.ts';
import {
  BoardScheduleSchema,
  ChallengeViewSchema,
  OpenChallengeSchema,
  SubmitBodySchema,
} from '../challenges/challenge-api.ts';
import { toJson, type Json } from './contract.ts';

const ErrorBody = toJson(
  z.object({
    type: z.literal('error'),
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    details: z.array(z.string()).optional(),
  }),
);
const json = (schema: Json) => ({ 'application/json': { schema } });
const errors = {
  default: {
    description: 'An error (docs/PROTOCOL.md, the error table)',
    content: json({ $ref: '#/components/schemas/Error' }),
  },
};
const okAny = (description: string) => ({ description, content: json({ type: 'object' }) });
const labParam = { name: 'lab', in: 'path', required: true, schema: { type: 'string' } };
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } };
const bearer = [{ instructor: [] }];
const body = (ref: string) => ({
  required: true,
  content: json({ $ref: `#/components/schemas/${ref}` }),
});

/** An instructor's change: bearer token, a lab (or other) path, an optional body. */
const change = (summary: string, requestBody?: Json, params: Json[] = [labParam]) => ({
  summary,
  security: bearer,
  parameters: params,
  ...(requestBody ? { requestBody } : {}),
  responses: { '200': okAny('Done'), ...errors },
});
/** An open read: its parameters and, where a schema names it, what it returns. */
const read = (summary: string, params: Json[] = [labParam], extra: Json[] = [], ref?: string) => ({
  summary,
  parameters: [...params, ...extra],
  responses: {
    '200': ref
      ? { description: summary, content: json({ $ref: `#/components/schemas/${ref}` }) }
      : okAny(summary),
    ...errors,
  },
});

/** OpenAPI 3.1 of the REST API; request bodies are the zod schemas the API validates with. */
export function buildOpenApi(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Election Lab relay REST API',
      version: String(PROTOCOL_VERSION),
      description:
        'JSON in and out (Content-Type: application/json, body at most 2 MB). Reads are open; changes need the instructor token.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    components: {
      securitySchemes: { instructor: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: ErrorBody,
        CreateLab: toJson(CreateLabSchema),
        UpdateLab: toJson(UpdateLabSchema),
        FabricPatch: toJson(FabricPatchSchema),
        PlayPatch: toJson(PlayPatchSchema),
        Partition: toJson(PartitionSchema),
        Step: toJson(StepSchema),
        Bots: toJson(BotsSchema),
        LabConfig: toJson(LabConfigSchema, 'output'),
        LabSnapshot: toJson(LabSnapshotSchema, 'output'),
        ProcessInfo: toJson(ProcessInfoSchema, 'output'),
        SetLesson: toJson(SetLessonSchema),
        LessonView: toJson(LessonViewSchema.nullable(), 'output'),
        DemoStatus: toJson(DemoStatusSchema, 'output'),
        OpenChallenge: toJson(OpenChallengeSchema),
        SubmitChallenge: toJson(SubmitBodySchema),
        ChallengeView: toJson(ChallengeViewSchema.nullable(), 'output'),
        BoardSchedule: toJson(BoardScheduleSchema, 'output'),
      },
    },
    paths: {
      ...relayPaths(),
      ...labPaths(),
      ...processPaths(),
      ...controlPaths(),
      ...lessonPaths(),
      ...challengePaths(),
      ...tracePaths(),
    },
  };
}

/** The relay's own documents and its list of labs. */
function relayPaths(): Json {
  return {
    '/api/health': { get: read('Relay health', []) },
    '/api/algorithms': { get: read('The algorithms and their options', []) },
    '/api/schema.json': { get: read('This contract as JSON Schema 2020-12', []) },
    '/api/openapi.json': { get: read('This document', []) },
    '/api/labs': {
      get: read('Labs on this relay', []),
      post: {
        summary: 'Create a lab (defaults: link delay 20 ms, heartbeat detector, a random seed)',
        security: bearer,
        requestBody: body('CreateLab'),
        responses: { '201': okAny('The lab'), ...errors },
      },
    },
    '/api/join/{code}': {
      get: read('The lab a join code stands for: { lab, joinCode }', [
        { name: 'code', in: 'path', required: true, schema: { type: 'string' } },
      ]),
    },
  };
}

/** One lab and its network: config, fabric, hand play, partition. */
function labPaths(): Json {
  return {
    '/api/labs/{lab}': {
      get: read('A lab: config, processes, join code', [labParam], [], 'LabSnapshot'),
      put: change('Reconfigure a lab', body('UpdateLab')),
      delete: change('Delete a lab'),
    },
    '/api/labs/{lab}/fabric': { put: change('Change the network fabric', body('FabricPatch')) },
    '/api/labs/{lab}/play': {
      put: change(
        'Set hand play for the class (students by hand, chosen ids, hints)',
        body('PlayPatch'),
      ),
    },
    '/api/labs/{lab}/partition': {
      post: change('Partition the lab', body('Partition')),
      delete: change('Heal the partition'),
    },
  };
}

/** One process: its view, its grade's trace and the instructor's controls. */
function processPaths(): Json {
  return {
    '/api/labs/{lab}/processes/{id}': {
      get: read(
        'One process; `claimedGrade` and `hand.claimed` are what its tab reported, not verified',
        [labParam, idParam],
        [],
        'ProcessInfo',
      ),
    },
    '/api/labs/{lab}/processes/{id}/grade-trace': {
      get: read(
        "The failing run of the process's latest grade, as the trace file (JSON Lines) its tab sent",
        [labParam, idParam],
      ),
    },
    '/api/labs/{lab}/processes/{id}/crash': {
      post: change('Crash a process', undefined, [labParam, idParam]),
    },
    '/api/labs/{lab}/processes/{id}/recover': {
      post: change('Recover a process', undefined, [labParam, idParam]),
    },
    '/api/labs/{lab}/processes/{id}/pause': {
      post: change(
        'Pause a process (SIGSTOP): it gets and sends nothing until resumed',
        undefined,
        [labParam, idParam],
      ),
    },
    '/api/labs/{lab}/processes/{id}/resume': {
      post: change(
        'Resume a paused process (SIGCONT): it gets what waited for it, in order',
        undefined,
        [labParam, idParam],
      ),
    },
    '/api/labs/{lab}/processes/{id}/elect': {
      post: change('Ask a process to start an election', undefined, [labParam, idParam]),
    },
  };
}

/** The lab's run: pause, resume, reset, one step, the server's bots, the demo loop. */
function controlPaths(): Json {
  return {
    '/api/labs/{lab}/pause': { post: change('Pause the lab') },
    '/api/labs/{lab}/resume': { post: change('Resume the lab') },
    '/api/labs/{lab}/reset': { post: change('Reset the lab') },
    '/api/labs/{lab}/job/restart': {
      post: change(
        "Restart the work schedule's job: held messages dropped, every live process restarts with a fresh task list, agreeing on the coordinator they agreed on (no election; electing when they did not agree); answers { coordinator } (409 NO_WORKLOAD without a workload)",
      ),
    },
    '/api/labs/{lab}/step': {
      post: change('Deliver or drop one held message while paused', body('Step')),
    },
    '/api/labs/{lab}/bots': {
      post: change('Start server-side bots', body('Bots')),
      delete: change('Stop the server-side bots'),
    },
    '/api/labs/{lab}/demo': {
      get: read(
        "Whether the demo loop drives the lab (npm start's demo lab: its coordinator crashed and recovered every `everyMs`); any instructor request on the lab stops it",
        [labParam],
        [],
        'DemoStatus',
      ),
      delete: change('Stop the demo loop (a process it crashed is recovered)'),
    },
  };
}

/** Lessons: the shipped ones and the lab's current one, moved on by the instructor. */
function lessonPaths(): Json {
  return {
    '/api/lessons': {
      get: read(
        'The shipped lessons (lessons/*.json, each a Lesson of docs/schema.json; without the instructor token each step has its title and question only); `refused`: files left out, with the fields that failed',
        [],
      ),
    },
    '/api/labs/{lab}/lesson': {
      get: read(
        "The lab's lesson as the class sees it (JSON null when it runs none); with the instructor token also each answer by process id (byStudent)",
        [labParam],
        [],
        'LessonView',
      ),
      post: change(
        'Run a lesson in the lab: a shipped one by id or a lesson of her own, from step `step` (answers start empty)',
        body('SetLesson'),
      ),
      delete: change("End the lab's lesson"),
    },
    '/api/labs/{lab}/lesson/trace': {
      get: read(
        "The step's run as a trace file (JSON Lines, opens in /replay?lesson=LAB): from the reveal on (the instructor: once it ran)",
      ),
    },
    '/api/labs/{lab}/lesson/{action}': {
      post: change(
        'Move the lesson on: start (open the question), lock (no more answers), run (run the step in the simulator), reveal, next',
        undefined,
        [
          labParam,
          {
            name: 'action',
            in: 'path',
            required: true,
            schema: { type: 'string', enum: ['start', 'lock', 'run', 'reveal', 'next'] },
          },
        ],
      ),
    },
  };
}

/** The "break it" challenges: open one, submit runs, read the board. */
function challengePaths(): Json {
  return {
    '/api/challenges': {
      get: read(
        'The shipped "break it" challenges (challenges/*.json, each a Challenge of docs/schema.json); `refused`: files left out, with the fields that failed',
        [],
      ),
    },
    '/api/labs/{lab}/challenge': {
      get: read(
        "The lab's open challenge and its board, fewest faults first (JSON null when none is open)",
        [labParam],
        [],
        'ChallengeView',
      ),
      post: change(
        'Open a shipped challenge in the lab (the board starts empty)',
        body('OpenChallenge'),
      ),
      delete: change("Close the lab's challenge"),
    },
    '/api/labs/{lab}/challenge/submissions': {
      post: {
        summary:
          'Submit a run (as the `submit` frame does): the relay re-runs it and answers { accepted, faults, at, rank }, or SUBMISSION_REFUSED naming the reason (wrong-challenge, setup-changed, unknown-process, over-budget, run-too-long, not-reproduced)',
        parameters: [labParam],
        requestBody: body('SubmitChallenge'),
        responses: { '200': okAny('Accepted'), ...errors },
      },
    },
    '/api/labs/{lab}/challenge/board/{rank}': {
      get: {
        ...read(
          'An accepted entry: her name, seed and schedule',
          [
            labParam,
            { name: 'rank', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          ],
          [],
          'BoardSchedule',
        ),
        security: bearer,
      },
    },
    '/api/labs/{lab}/challenge/board/{rank}/trace': {
      get: {
        ...read(
          "The entry's run, re-run by the relay, as a trace file (JSON Lines, opens in /replay?challenge=LAB&rank=N)",
          [
            labParam,
            { name: 'rank', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          ],
        ),
        security: bearer,
      },
    },
    '/api/labs/{lab}/challenge/board/{rank}/live': {
      post: change(
        "Replay the entry in the live lab: the challenge's set-up with her seed, her faults at their times; answers the ChallengeView, whose `live` then follows the run and says whether the live run reached the target (409 LIVE_RUN_BUSY while a lesson step or another replay runs, 409 LIVE_RUN_REFUSED when the live lab cannot run the set-up)",
        undefined,
        [
          labParam,
          { name: 'rank', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
        ],
      ),
    },
  };
}

/** What the relay holds and saw: messages in flight, counts, the trace. */
function tracePaths(): Json {
  return {
    '/api/labs/{lab}/inflight': { get: read('Messages held by the relay') },
    '/api/labs/{lab}/stats': { get: read('Counts, the election, the checker') },
    '/api/labs/{lab}/trace': {
      get: read(
        'The trace (JSON Lines)',
        [labParam],
        [
          {
            name: 'since',
            in: 'query',
            required: false,
            description: 'Only events with seq greater than this (exclusive)',
            schema: { type: 'integer', minimum: 0 },
          },
        ],
      ),
    },
  };
}
