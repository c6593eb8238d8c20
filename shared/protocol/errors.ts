// One table of protocol errors, after ws's error factory: every error a client can see has a
// stable code here, an HTTP status for the REST API, and one function builds the frame. Only
// these texts reach a client; internal exception messages never do.

export const ERRORS = {
  BAD_JSON: { status: 400, message: 'Frame is not valid JSON' },
  BAD_FRAME: { status: 400, message: 'Frame does not match the protocol schema' },
  UNKNOWN_TYPE: { status: 400, message: 'Unknown frame type' },
  FRAME_TOO_LARGE: { status: 413, message: 'Frame exceeds the size limit' },
  RATE_LIMITED: { status: 429, message: 'Too many frames; slow down' },
  BYTES_LIMITED: {
    status: 429,
    message:
      'Too many message bytes a second from this address or into this lab; messages are refused',
  },
  TOO_SLOW: {
    status: 503,
    message: 'This connection did not read what the relay sent it and was cut off',
  },
  BAD_REQUEST: { status: 400, message: 'Request body does not match the schema' },
  UNAUTHORIZED: { status: 401, message: 'Instructor token missing or wrong' },
  NOT_FOUND: { status: 404, message: 'No such resource' },
  UNKNOWN_LAB: { status: 404, message: 'No lab with that name' },
  LAB_EXISTS: { status: 409, message: 'A lab with that name already exists' },
  UNKNOWN_PROCESS: { status: 404, message: 'No process with that id in this lab' },
  ID_NOT_IN_LAB: { status: 400, message: "That id is not in the lab's id set" },
  ID_TAKEN: { status: 409, message: 'That id is already claimed by a live process' },
  LAB_FULL: { status: 409, message: 'Every id of this lab is taken' },
  NOT_JOINED: { status: 409, message: 'Join a lab before sending' },
  ALREADY_JOINED: { status: 409, message: 'This connection already joined a lab' },
  PROCESS_NOT_UP: { status: 409, message: 'That process is not connected and up' },
  PROCESS_PAUSED: {
    status: 409,
    message:
      'This process is paused by the instructor: it sends nothing until it is resumed; the message is not sent',
  },
  NOT_PAUSED: { status: 409, message: 'The lab is not paused' },
  NO_SUCH_MESSAGE: { status: 404, message: 'No in-flight message with that id' },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: 'This browser origin may not use this relay (ALLOWED_ORIGINS)',
  },
  LAB_BUSY: {
    status: 503,
    message: 'The lab holds as many messages as its limits allow; this one is dropped',
  },
  UNKNOWN_LESSON: { status: 404, message: 'No lesson with that id (GET /api/lessons lists them)' },
  NO_LESSON: { status: 404, message: 'This lab runs no lesson' },
  LESSON_PHASE: { status: 409, message: "That lesson action does not fit the step's phase" },
  LESSON_CLOSED: { status: 409, message: 'No question of this lab is open for answers' },
  BAD_ANSWER: { status: 400, message: 'That answer does not fit the question' },
  UNKNOWN_CHALLENGE: {
    status: 404,
    message: 'No challenge with that id (GET /api/challenges lists them)',
  },
  NO_CHALLENGE: { status: 404, message: 'This lab has no challenge open' },
  SUBMISSION_REFUSED: {
    status: 422,
    message: "The relay's own run of the submission did not break it within the budget",
  },
  SESSION_REFUSED: {
    status: 403,
    message: 'That lab session (process id and resume token) is not held in this lab',
  },
  LIVE_RUN_BUSY: {
    status: 409,
    message: 'The live lab is running a scripted run (a lesson step or a replay); wait for its end',
  },
  NO_WORKLOAD: { status: 409, message: 'This lab runs no work schedule' },
  LIVE_RUN_REFUSED: { status: 409, message: 'The live lab cannot run this set-up' },
  INTERNAL: { status: 500, message: 'Internal error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export interface ErrorFrame {
  type: 'error';
  code: ErrorCode;
  message: string;
  /** Echoes the `ref` of the frame that caused it, when it had one. */
  ref?: string | number;
  /** Which fields were wrong, for schema errors (paths only, never raw input). */
  details?: string[];
}

export function errorFrame(
  code: ErrorCode,
  opts: { ref?: string | number; details?: string[]; message?: string } = {},
): ErrorFrame {
  const frame: ErrorFrame = { type: 'error', code, message: opts.message ?? ERRORS[code].message };
  if (opts.ref !== undefined) frame.ref = opts.ref;
  if (opts.details?.length) frame.details = opts.details.slice(0, 10);
  return frame;
}

/** Errors are values at module edges. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorFrame };
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(
  code: ErrorCode,
  opts?: Parameters<typeof errorFrame>[1],
): Result<T> => ({ ok: false, error: errorFrame(code, opts) });

/**
 * A schema's first `max` complaints, each as "field.path: message" (`whole` when the value itself
 * is wrong), as the person who sent or wrote it needs to read them.
 */
export function issueLines(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  whole: string,
  max = 10,
): string[] {
  return issues.slice(0, max).map((i) => `${i.path.map(String).join('.') || whole}: ${i.message}`);
}
