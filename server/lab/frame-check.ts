// Every frame from a socket is checked here before it touches any state (socket.io's
// isPacketValid): size, JSON, a known type, then the frame's schema. Errors are values carrying
// the error code and the offending fields' paths, never the raw input.
import type { z } from 'zod';
import { errorFrame, fail, issueLines, ok, type Result } from '@shared/protocol/errors.ts';
import {
  CLIENT_FRAME_TYPES,
  ClientFrameSchema,
  MAX_FRAME_BYTES,
  type ClientFrame,
} from '@shared/protocol/frames.ts';
import { MAX_PROCESS_ID } from '@shared/protocol/lab-config.ts';

const KNOWN_TYPES = new Set<string>(CLIENT_FRAME_TYPES);

// One error per input whatever the transport (ws or socket.io): these answers are shared.
/** An oversized frame is not read, so its `ref` is never echoed (on either transport). */
export const tooLarge = () =>
  errorFrame('FRAME_TOO_LARGE', { message: `Frame exceeds ${MAX_FRAME_BYTES} bytes` });
const BINARY = 'Frames are JSON text, not binary';
/** A binary message (ws) or a frame with binary attachments (socket.io). */
export const binaryRefused = () => errorFrame('BAD_FRAME', { message: BINARY });

/** Text of a raw WebSocket message to a value. */
export function decodeText(data: Buffer | string, isBinary: boolean): Result<unknown> {
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  if (size > MAX_FRAME_BYTES) return { ok: false, error: tooLarge() };
  if (isBinary) return { ok: false, error: binaryRefused() };
  try {
    return ok(JSON.parse(typeof data === 'string' ? data : data.toString('utf8')));
  } catch {
    return fail('BAD_JSON');
  }
}

/** How deep a frame may nest (objects and arrays); deeper JSON breaks common readers of the trace. */
const MAX_DEPTH = 32;

/**
 * Whether `value` nests at most `max` levels. Recursive, but never deeper than `max`, so no input
 * can overflow the stack; no allocation on the way (it runs on every frame).
 */
function depthWithin(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (max <= 0) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!depthWithin(value[i], max - 1)) return false;
    return true;
  }
  for (const k in value)
    if (!depthWithin((value as Record<string, unknown>)[k], max - 1)) return false;
  return true;
}

/** A decoded value to a client frame. */
export function checkFrame(raw: unknown): Result<ClientFrame> {
  const ref = refOf(raw);
  if (raw instanceof ArrayBuffer || ArrayBuffer.isView(raw))
    return { ok: false, error: binaryRefused() };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return fail('BAD_FRAME', { ref, message: 'A frame is a JSON object with a "type"' });
  if (!depthWithin(raw, MAX_DEPTH))
    return fail('BAD_FRAME', { ref, message: `A frame nests at most ${MAX_DEPTH} levels deep` });
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== 'string')
    return fail('BAD_FRAME', {
      ref,
      message: 'A frame is a JSON object with a "type"',
      details: ['type: required, a string'],
    });
  if (!KNOWN_TYPES.has(type))
    return fail('UNKNOWN_TYPE', {
      ref,
      message: `Unknown frame type; expected one of ${CLIENT_FRAME_TYPES.join(', ')}`,
    });
  if (type === 'send') {
    const fast = sendFrame(raw as Record<string, unknown>);
    if (fast) return ok(fast);
  }
  const parsed = ClientFrameSchema.safeParse(raw);
  if (!parsed.success) {
    // A rule of the protocol's own (a name's characters, a grade that contradicts itself) is the message.
    const own = parsed.error.issues.find((i) => i.code === 'custom');
    return fail('BAD_FRAME', {
      ref,
      details: issuePaths(parsed.error),
      ...(own
        ? { message: `${own.path.map(String).join('.')}: ${own.message}`.slice(0, 200) }
        : {}),
    });
  }
  return ok(parsed.data);
}

/**
 * The hot path's frame (every message a process sends), checked by hand by the rules of its
 * schema (frames.ts: strict; `to` an id; `message` an object whose `type` is 1 to 32 characters;
 * `ref` a string of at most 64 or an integer) without zod's copy of it. What this does not accept
 * goes to zod, which says why; test/unit/frame-check.test.ts holds the two to the same answers.
 */
function sendFrame(raw: Record<string, unknown>): ClientFrame | null {
  for (const k in raw)
    if (k !== 'type' && k !== 'to' && k !== 'message' && k !== 'ref') return null;
  const to = raw['to'];
  if (typeof to !== 'number' || !Number.isSafeInteger(to) || to < 0 || to > MAX_PROCESS_ID)
    return null;
  const ref = raw['ref'];
  if (
    ref !== undefined &&
    !(typeof ref === 'string'
      ? ref.length <= 64
      : typeof ref === 'number' && Number.isSafeInteger(ref))
  )
    return null;
  const message = raw['message'];
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const t = (message as { type?: unknown }).type;
  if (typeof t !== 'string' || t.length < 1 || t.length > 32) return null;
  return raw as ClientFrame;
}

/** The frame's `ref`, when it is one a reply may echo. */
function refOf(raw: unknown): string | number | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const ref = (raw as { ref?: unknown }).ref;
  if (typeof ref === 'string' && ref.length <= 64) return ref;
  if (typeof ref === 'number' && Number.isSafeInteger(ref)) return ref;
  return undefined;
}

export function issuePaths(error: z.ZodError): string[] {
  return issueLines(error.issues, '(frame)').map((line) => line.slice(0, 160));
}
