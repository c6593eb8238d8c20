// Her effects, checked before any host acts on them: the wire format the bots understand, sends
// only to ids of the lab, JSON messages within a size, timers with names and sane delays, at most
// a few sends per process per step. What fails is a sentence naming the first bad effect.
import type { AlgorithmName, Effect, Message, ProcessId } from '../algorithms/algorithm.ts';
import { DETECTOR_SCHEMAS, parseMessage } from '../algorithms/messages.ts';
import { MESSAGE_SCHEMAS } from '../algorithms/registry.ts';

export const DETECTOR_MESSAGE_TYPES: readonly string[] = Object.keys(DETECTOR_SCHEMAS);

/** The algorithms whose host runs the failure detector for her (the others carry their own heartbeats). */
export const HOST_DETECTOR: readonly AlgorithmName[] = ['bully', 'ring', 'ring-active-list'];

/** Every message type of `algorithm` on the wire, the detector's included. */
export function wireTypes(algorithm: AlgorithmName): string[] {
  return Object.keys(MESSAGE_SCHEMAS[algorithm]);
}

/** The message types her module may send in a lab of `algorithm`. */
export function studentMessageTypes(algorithm: AlgorithmName): string[] {
  const all = wireTypes(algorithm);
  return HOST_DETECTOR.includes(algorithm)
    ? all.filter((t) => !DETECTOR_MESSAGE_TYPES.includes(t))
    : all;
}

/** Why the bots of `algorithm` would not understand `message` (null: they would). */
export function wireProblem(algorithm: AlgorithmName, message: Message): string | null {
  if (parseMessage(MESSAGE_SCHEMAS[algorithm], message)) return null;
  const schema = MESSAGE_SCHEMAS[algorithm][message.type];
  if (!schema) return `${message.type} is not a message type of ${algorithm}`;
  const r = schema.safeParse(message);
  if (r.success) return null;
  const issue = r.error.issues[0]!;
  const path = issue.path.length ? issue.path.map(String).join('.') : '';
  return `${message.type}${path ? `.${path}` : ''}: ${issue.message}`;
}

/** Most sends one step may make: enough to tell every other process something twice. */
export function maxSendsPerStep(ids: number): number {
  return Math.max(64, 4 * ids);
}
const MAX_MESSAGE_BYTES = 8 * 1024;
const MAX_TIMER_MS = 24 * 3600 * 1000;
const TIMER_NAME = /^.{1,64}$/s;

export interface Rules {
  self: ProcessId;
  ids: ReadonlySet<ProcessId>;
  types: ReadonlySet<string>;
  reservedTypes: ReadonlySet<string>;
  reservedTimers: boolean;
  maxSends: number;
}

/**
 * Her effects checked, in order; a copy that shares nothing with her state (a message she later
 * changes in place cannot change what was sent). `report` effects are dropped: the host reports.
 * Throws a message naming the first effect that is not one.
 */
export function checkEffects(effects: unknown, rules: Rules): Effect[] {
  if (!Array.isArray(effects)) throw new Error(`effects must be an array, got ${kindOf(effects)}`);
  const out: Effect[] = [];
  let sends = 0;
  if (effects.length > 8 * rules.maxSends) {
    const sent = effects.filter((e) => (e as { kind?: unknown } | null)?.kind === 'send').length;
    if (sent > rules.maxSends)
      throw new Error(
        `${sent} sends in one step; at most ${rules.maxSends} (a lab of ${rules.ids.size} processes never needs that many)`,
      );
    throw new Error(`${effects.length} effects in one step; at most ${8 * rules.maxSends}`);
  }
  for (let i = 0; i < effects.length; i++) {
    const e = effects[i] as Record<string, unknown> | null;
    const at = `effects[${i}]`;
    if (!e || typeof e !== 'object' || Array.isArray(e))
      throw new Error(`${at} is ${kindOf(e)}, not an effect object`);
    switch (e.kind) {
      case 'send':
        if (++sends > rules.maxSends)
          throw new Error(
            `more than ${rules.maxSends} sends in one step (a lab of ${rules.ids.size} processes never needs that many)`,
          );
        out.push(checkSend(e, at, rules));
        break;
      case 'set-timer':
        out.push(checkSetTimer(e, at, rules));
        break;
      case 'cancel-timer':
        out.push({ kind: 'cancel-timer', name: checkTimerName(e.name, at, 'cancel-timer', rules) });
        break;
      case 'report':
        break;
      default:
        throw new Error(
          `${at} has kind ${JSON.stringify(e.kind) ?? 'undefined'}; an effect is one of send, set-timer, cancel-timer`,
        );
    }
  }
  return out;
}

/** A send to another process of this lab, of one of her message types, as a JSON copy. */
function checkSend(e: Record<string, unknown>, at: string, rules: Rules): Effect {
  const to = e.to;
  if (typeof to !== 'number' || !Number.isInteger(to))
    throw new Error(`${at}: send.to must be a process id (a whole number), got ${kindOf(to)}`);
  if (to === rules.self)
    throw new Error(`${at}: a send to itself (${to}); to act later, set a timer`);
  if (!rules.ids.has(to))
    throw new Error(
      `${at}: a send to ${to}, which is not in this lab (ids ${describeIds(rules.ids)})`,
    );
  const message = jsonCopy(e.message, `${at}.message`);
  if (!message || typeof message !== 'object' || Array.isArray(message))
    throw new Error(`${at}.message must be an object with a string type, got ${kindOf(message)}`);
  const type = (message as { type?: unknown }).type;
  if (typeof type !== 'string' || type.length === 0 || type.length > 32)
    throw new Error(`${at}.message.type must be a string of 1 to 32 characters`);
  if (rules.reservedTypes.has(type))
    throw new Error(`${at}: ${type} belongs to the host's failure detector; the host sends it`);
  if (!rules.types.has(type))
    throw new Error(
      `${at}: message type ${type} is not in your messageTypes (${[...rules.types].join(', ')})`,
    );
  return { kind: 'send', to, message: message as Message };
}

/** A timer of hers: a named one (not the host detector's), due within MAX_TIMER_MS. */
function checkSetTimer(e: Record<string, unknown>, at: string, rules: Rules): Effect {
  const name = checkTimerName(e.name, at, 'set-timer', rules);
  const after = e.after;
  if (typeof after !== 'number' || !Number.isFinite(after) || after < 0 || after > MAX_TIMER_MS)
    throw new Error(
      `${at}: set-timer.after must be a number of ms from 0 to ${MAX_TIMER_MS}, got ${kindOf(after)}`,
    );
  return { kind: 'set-timer', name, after };
}

function checkTimerName(name: unknown, at: string, kind: string, rules: Rules): string {
  if (typeof name !== 'string' || !TIMER_NAME.test(name))
    throw new Error(`${at}: ${kind}.name must be a string of 1 to 64 characters`);
  if (rules.reservedTimers && name.startsWith('fd:'))
    throw new Error(`${at}: timer names starting with fd: belong to the host's failure detector`);
  return name;
}

/** A JSON round trip, with the reason when the value is not JSON (undefined, NaN, a function, a cycle...). */
function jsonCopy(v: unknown, at: string): unknown {
  const problem = plainProblem(v, at, true);
  if (problem) throw new Error(`${problem} (messages must be JSON)`);
  const text = JSON.stringify(v);
  if (text.length > MAX_MESSAGE_BYTES)
    throw new Error(`${at} is ${text.length} bytes as JSON; at most ${MAX_MESSAGE_BYTES}`);
  return JSON.parse(text);
}

/**
 * The first thing in `v` that is not plain data (objects, arrays, strings, finite numbers,
 * booleans, null; `undefined` too unless `json`), or null. Bounded: a huge value is a problem too.
 */
export function plainProblem(v: unknown, at: string, json = false): string | null {
  const seen = new Set<object>();
  let budget = 20_000;
  const go = (x: unknown, path: string, depth: number): string | null => {
    if (--budget < 0) return `${at} is too large (over 20,000 values)`;
    switch (typeof x) {
      case 'string':
      case 'boolean':
        return null;
      case 'number':
        return json && !Number.isFinite(x) ? `${path} is ${x}` : null;
      case 'undefined':
        return json ? `${path} is undefined` : null;
      case 'object': {
        if (x === null) return null;
        if (depth > 64) return `${path} is nested more than 64 levels deep`;
        if (seen.has(x)) return `${path} refers back to itself (a cycle)`;
        const proto = Object.getPrototypeOf(x);
        if (Array.isArray(x)) {
          seen.add(x);
          for (let i = 0; i < x.length; i++) {
            const p = go(x[i], `${path}[${i}]`, depth + 1);
            if (p) return p;
          }
          seen.delete(x);
          return null;
        }
        if (proto !== Object.prototype && proto !== null) {
          const name =
            (x as { constructor?: { name?: string } }).constructor?.name ??
            'an object with a prototype';
          return `${path} is a ${name}; use plain objects and arrays`;
        }
        seen.add(x);
        for (const k of Object.keys(x)) {
          const p = go((x as Record<string, unknown>)[k], `${path}.${k}`, depth + 1);
          if (p) return p;
        }
        seen.delete(x);
        return null;
      }
      default:
        return `${path} is a ${typeof x}`;
    }
  };
  return go(v, at, 0);
}

export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}…` : v);
  return typeof v === 'object' ? 'an object' : typeof v;
}

function describeIds(ids: ReadonlySet<ProcessId>): string {
  const list = [...ids].sort((a, b) => a - b);
  return list.length <= 8 ? list.join(', ') : `${list[0]}..${list[list.length - 1]}`;
}
