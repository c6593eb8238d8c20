// Jepsen Maelstrom's node protocol (its doc/protocol.md), as our lab speaks it: one JSON object a
// line, `{src, dest, body: {type, msg_id?, in_reply_to?, ...}}`, nodes named "n<id>", `init` /
// `init_ok`. A lab message is the body, verbatim; `msg_id` and `in_reply_to` are Maelstrom's
// envelope keys and never reach a peer (docs/MAELSTROM.md). What a node writes is untrusted: every
// line is read here into one of a few outcomes, and only a message that fits the lab algorithm's
// schema, in a frame the relay would take, becomes a send. Pure: the hosts (scripts/maelstrom*)
// do the I/O.
import { z } from 'zod';
import type { Message, ProcessId, Report } from '../algorithms/algorithm.ts';
import { parseMessage, type MessageSchemas } from '../algorithms/messages.ts';
import { MAX_FRAME_BYTES, type ProcessConfig } from './frames.ts';
import { MAX_PROCESS_ID } from './lab-config.ts';
import { ReportSchema } from './payloads.ts';

/** The pseudo-node a Maelstrom node writes its beliefs to, and that sends it `init` and `elect`. */
export const LAB_NODE = 'lab';

export const nodeName = (id: ProcessId): string => `n${id}`;

/** "n7" -> 7; null for anything else (clients "c1", "lab", "n07", "n-1"). */
export function nodeId(name: unknown): ProcessId | null {
  if (typeof name !== 'string' || !/^n(0|[1-9]\d{0,6})$/.test(name)) return null;
  const id = Number(name.slice(1));
  return id <= MAX_PROCESS_ID ? id : null;
}

/** One line of the protocol. Extra top-level keys (Maelstrom's own `id`) are ignored. */
const LineSchema = z.object({
  src: z.string().max(64),
  dest: z.string().max(64),
  body: z.looseObject({
    type: z.string().min(1).max(32),
    msg_id: z.int().min(0).optional(),
    in_reply_to: z.int().min(0).optional(),
  }),
});
export type MaelstromLine = z.infer<typeof LineSchema>;

/** What a node's stdout line means. */
type NodeOutput =
  | { kind: 'send'; to: ProcessId; message: Message }
  | { kind: 'report'; report: Report }
  | { kind: 'init_ok'; inReplyTo: number | undefined }
  | { kind: 'refused'; reason: string };

export interface LineContext {
  self: ProcessId;
  /** The lab's ids: the only `n<k>` a node may write to. */
  ids: ReadonlySet<ProcessId>;
  /** The lab algorithm's message schemas (shared/algorithms/registry.ts MESSAGE_SCHEMAS). */
  schemas: MessageSchemas;
}

const utf8 = new TextEncoder();
const refused = (reason: string): NodeOutput => ({ kind: 'refused', reason });

/** Reads one stdout line of a node (already bounded in length by the host). */
export function readNodeLine(text: string, ctx: LineContext): NodeOutput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refused('not JSON');
  }
  const parsed = LineSchema.safeParse(json);
  if (!parsed.success)
    return refused(
      `not a Maelstrom message: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`)
        .join('; ')}`,
    );
  const { src, dest, body } = parsed.data;
  if (src !== nodeName(ctx.self))
    return refused(`src is ${JSON.stringify(src)}, not this node's id "${nodeName(ctx.self)}"`);
  const { msg_id: _id, in_reply_to: inReplyTo, ...fields } = body;
  if (body.type === 'init_ok') return { kind: 'init_ok', inReplyTo };
  if (dest === LAB_NODE) return readReport(fields);
  const to = nodeId(dest);
  if (to === null || !ctx.ids.has(to))
    return refused(
      `dest ${JSON.stringify(dest)} is no node of this lab (n<id> for the lab's ids, or "lab")`,
    );
  if (to === ctx.self) return refused('a node cannot send to itself');
  const message = parseMessage(ctx.schemas, fields);
  if (!message)
    return refused(
      `body does not fit the lab algorithm's ${JSON.stringify(body.type)} message (types: ${Object.keys(ctx.schemas).join(', ')})`,
    );
  // The relay refuses a frame past its limit; say so here, where the line number is known.
  const bytes = utf8.encode(JSON.stringify({ type: 'send', to, message })).length;
  if (bytes > MAX_FRAME_BYTES)
    return refused(
      `the message takes ${bytes} bytes as a frame; the relay takes ${MAX_FRAME_BYTES} at most`,
    );
  return { kind: 'send', to, message };
}

/** A body to `lab`: `{type: "report", ...the report frame's fields}`; ids may be written "n<k>". */
function readReport(fields: Record<string, unknown>): NodeOutput {
  if (fields['type'] !== 'report')
    return refused(
      `"lab" takes only {"type": "report", ...}; got ${JSON.stringify(fields['type'])}`,
    );
  const { type: _type, ...rest } = fields;
  const asId = (v: unknown) => (typeof v === 'string' && nodeId(v) !== null ? nodeId(v) : v);
  const report: Record<string, unknown> = { ...rest };
  for (const key of ['coordinator', 'successor'] as const)
    if (key in report) report[key] = asId(report[key]);
  if (Array.isArray(report['activeList']))
    report['activeList'] = report['activeList'].slice(0, 5001).map(asId);
  const parsed = ReportSchema.safeParse(report);
  if (!parsed.success)
    return refused(
      `report does not fit the report frame: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  return { kind: 'report', report: parsed.data as Report };
}

/**
 * `init` for node `self`: Maelstrom's fields, plus `lab`, the lab's algorithm, timing bounds and
 * detector, which Maelstrom's libraries ignore and a node may read to time itself as the bots do.
 */
export function initLine(
  self: ProcessId,
  config: Pick<ProcessConfig, 'algorithm' | 'ids' | 'timing' | 'detector' | 'options'>,
  msgId: number,
): MaelstromLine {
  const ids = [...config.ids].sort((a, b) => a - b);
  const lab = {
    algorithm: config.algorithm,
    timing: config.timing,
    detector: config.detector,
    options: config.options,
  };
  return {
    src: LAB_NODE,
    dest: nodeName(self),
    body: {
      type: 'init',
      msg_id: msgId,
      node_id: nodeName(self),
      node_ids: ids.map(nodeName),
      lab,
    },
  };
}

/** A lab message from `from` to `self`, as a line for the node's stdin. */
export function messageLine(from: ProcessId, self: ProcessId, message: Message): MaelstromLine {
  return { src: nodeName(from), dest: nodeName(self), body: message };
}

/** The instructor's "elect" (our algorithms' `elect` event): a message from the lab. */
export function electLine(self: ProcessId): MaelstromLine {
  return { src: LAB_NODE, dest: nodeName(self), body: { type: 'elect' } };
}

/**
 * A line a node (or a Maelstrom client) wrote to us: who sent it and its body without Maelstrom's
 * envelope keys; null when it is no Maelstrom message. For the other direction (maelstrom-node).
 */
export function readInboundLine(
  text: string,
): { src: string; dest: string; body: Message; msgId: number | undefined } | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = LineSchema.safeParse(json);
  if (!parsed.success) return null;
  const { msg_id: msgId, in_reply_to: _r, ...body } = parsed.data.body;
  return { src: parsed.data.src, dest: parsed.data.dest, body: body as Message, msgId };
}
