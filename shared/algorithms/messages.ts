// What a peer may send, checked before an algorithm sees it. Every algorithm declares one zod
// schema per message type (beside it: bully-messages.ts...); `messageParser` is the one gate. A
// message that does not fit (unknown type, `__proto__`, a missing or mistyped field, an id out of
// range, an oversized list) is ignored and counted by `total` (algorithm.ts), so `step` never
// sees it and never throws on it: students' hand-made and home-made messages arrive every class.
import { z } from 'zod';
import type { Message, ProcessId } from './algorithm.ts';
import { compileCheck, type MessageCheck } from './message-check.ts';

/** The relay's id range (shared/protocol/lab-config.ts allows the same). */
export const IdSchema = z.int().min(0).max(1_000_000);
/** Counters and sequence numbers: whole, not negative, exact in a double. */
export const CountSchema = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
/** Lists of ids travel round rings: at most a lab's size. */
export const IdListSchema = z.array(IdSchema).max(5000);

/** One schema per message type; the keys are the algorithm's message types. */
export type MessageSchemas = Readonly<Record<string, z.ZodType<Message>>>;

/** A message with only its `type` (the failure detector's and the emergent algorithm's beacons). */
export const bare = <T extends string>(type: T) => z.object({ type: z.literal(type) });

/** The failure detector's messages (failure-detector.ts), shared by every algorithm that embeds it. */
export const DETECTOR_SCHEMAS = {
  HEARTBEAT: bare('HEARTBEAT'),
  PING: bare('PING'),
  PONG: bare('PONG'),
} satisfies MessageSchemas;

/** The ring hop layer's acknowledgement (ring-forwarding.ts). */
export const ACK_SCHEMA = z.object({ type: z.literal('ACK'), seq: CountSchema });

/** Reads a message against a set of schemas: the message as its schema reads it, or null. */
type MessageParser = (message: unknown) => Message | null;

/**
 * The parser for one set of schemas: each type's fast check (message-check.ts) made the first
 * time that type arrives, zod's safeParse for a schema that check cannot read. Unknown fields
 * are dropped.
 */
export function messageParser(schemas: MessageSchemas): MessageParser {
  const checks = new Map<string, MessageCheck | null>();
  return (message) => {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
    const type = (message as { type?: unknown }).type;
    // Own keys only: `__proto__`, `constructor` and `toString` are not message types.
    if (typeof type !== 'string' || !Object.hasOwn(schemas, type)) return null;
    let check = checks.get(type);
    if (check === undefined) checks.set(type, (check = compileCheck(schemas[type]!)));
    if (check) return check(message);
    const parsed = schemas[type]!.safeParse(message);
    return parsed.success ? parsed.data : null;
  };
}

const parsers = new WeakMap<MessageSchemas, MessageParser>();

/** `messageParser(schemas)` applied once (the parser kept per set of schemas). */
export function parseMessage<M extends Message>(
  schemas: MessageSchemas,
  message: unknown,
): M | null {
  let parse = parsers.get(schemas);
  if (!parse) parsers.set(schemas, (parse = messageParser(schemas)));
  return parse(message) as M | null;
}

export const isProcessId = (from: unknown): from is ProcessId =>
  typeof from === 'number' && Number.isSafeInteger(from) && from >= 0 && from <= 1_000_000;
