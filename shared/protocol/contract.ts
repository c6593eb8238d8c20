// The wire contract as data: JSON Schema 2020-12 of every client and relay frame and of the trace
// format, generated from the zod schemas (one source of truth); openapi.ts builds the REST API's
// OpenAPI 3.1 from the same schemas. `npm run contract` writes both to docs/; the relay serves the
// same at /api/schema.json and /api/openapi.json. A schema added or changed in zod shows up here
// with no further edit.
import { z } from 'zod';
import { ClientFrameSchema, PROTOCOL_VERSION, ProcessConfigSchema } from './frames.ts';
import { ServerFrameSchema } from './server-frames.ts';
import { LessonSchema } from '../lessons/lesson-schema.ts';
import { ChallengeSchema, SubmissionSchema } from '../challenges/challenge-schema.ts';
import { TRACE_VERSION, TraceEventSchema, TraceHeaderSchema } from './trace.ts';

const SCHEMA_ID = 'https://election-lab.invalid/schema.json';

export type Json = Record<string, unknown>;
/** A zod schema as JSON Schema 2020-12, without its own `$schema` (the document names it once). */
export const toJson = (schema: z.ZodType, io: 'input' | 'output' = 'input'): Json => {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as Json;
  delete out['$schema'];
  return out;
};

/** The frames and the trace format, one document, `$defs` by name. */
export function buildSchema(): Json {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCHEMA_ID,
    title: 'Election Lab wire contract',
    description:
      'Frames a client sends (ClientFrame), frames the relay sends (ServerFrame), trace events (TraceEvent), lesson files (Lesson) and challenge files and submissions (Challenge, Submission; docs/RUN_A_CLASS.md). docs/PROTOCOL.md explains them.',
    'x-protocol-version': PROTOCOL_VERSION,
    'x-trace-version': TRACE_VERSION,
    $defs: {
      ClientFrame: toJson(ClientFrameSchema),
      ServerFrame: toJson(ServerFrameSchema, 'output'),
      TraceEvent: toJson(TraceEventSchema, 'output'),
      TraceHeader: toJson(TraceHeaderSchema, 'output'),
      ProcessConfig: toJson(ProcessConfigSchema, 'output'),
      Lesson: toJson(LessonSchema),
      Challenge: toJson(ChallengeSchema),
      Submission: toJson(SubmissionSchema),
    },
    anyOf: [
      { $ref: '#/$defs/ClientFrame' },
      { $ref: '#/$defs/ServerFrame' },
      { $ref: '#/$defs/TraceEvent' },
    ],
  };
}

/** The text written to docs/ and served: stable key order, two-space indent, final newline. */
export const contractText = (doc: Json): string => JSON.stringify(doc, null, 2) + '\n';
