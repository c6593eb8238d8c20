// Every frame from a socket is checked here before it touches any state (socket.io's
// isPacketValid): size, JSON, a known type, then the frame's schema. Errors are values carrying
// the error code and the offending fields' paths, never the raw input.
import type { z } from 'zod';
import { errorFrame, fail, ok, type Result } from '@shared/protocol/errors.ts';
import { CLIENT_FRAME_TYPES, ClientFrameSchema, MAX_FRAME_BYTES, type ClientFrame } from '@shared/protocol/frames.ts';

const KNOWN_TYPES = new Set<string>(CLIENT_FRAME_TYPES);

// One error per input whatever the transport (ws or socket.io): these answers are shared.
/** An oversized frame is not read, so its `ref` is never echoed (on either transport). */
export const tooLarge = () => errorFrame('FRAME_TOO_LARGE', { message: `Frame exceeds ${MAX_FRAME_BYTES} bytes` });
const BINARY = 'Frames are JSON text, not binary';

/** Text of a raw WebSocket message to a value. */
export function decodeText(data: Buffer | string, isBinary: boolean): Result<unknown> {
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  if (size > MAX_FRAME_BYTES) return { ok: false, error: tooLarge() };
  if (isBinary) return fail('BAD_FRAME', { message: BINARY });
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
  for (const k in value) if (!depthWithin((value as Record<string, unknown>)[k], max - 1)) return false;
  return true;
}

/** A decoded value to a client frame. */
export function checkFrame(raw: unknown): Result<ClientFrame> {
  const ref = refOf(raw);
  if (raw instanceof ArrayBuffer || ArrayBuffer.isView(raw)) return fail('BAD_FRAME', { message: BINARY });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('BAD_FRAME', { ref, message: 'A frame is a JSON object with a "type"' });
  if (!depthWithin(raw, MAX_DEPTH)) return fail('BAD_FRAME', { ref, message: `A frame nests at most ${MAX_DEPTH} levels deep` });
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== 'string') return fail('BAD_FRAME', { ref, message: 'A frame is a JSON object with a "type"', details: ['type: required, a string'] });
  if (!KNOWN_TYPES.has(type)) return fail('UNKNOWN_TYPE', { ref, message: `Unknown frame type; expected one of ${CLIENT_FRAME_TYPES.join(', ')}` });
  const parsed = ClientFrameSchema.safeParse(raw);
  if (!parsed.success) return fail('BAD_FRAME', { ref, details: issuePaths(parsed.error) });
  return ok(parsed.data);
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
  return error.issues.slice(0, 10).map((i) => `${i.path.map(String).join('.') || '(frame)'}: ${i.message}`.slice(0, 160));
}
