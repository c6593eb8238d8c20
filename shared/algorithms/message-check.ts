// The hot path's check of a message, made from its zod schema. zod's safeParse cost the simulator
// a fifth of its time on the 1,000-process Bully worst case (a million messages, each parsed on
// arrival), so each message schema is read once, through zod's own JSON Schema of it, into a plain
// function that checks the same fields the same way and builds the same result (known fields
// only, in the schema's order; arrays copied). The schema stays the one source of truth: a schema
// using anything not read here (a pattern, a union, a strict object...) gets no fast check and is
// parsed by zod, and test/message-check.test.ts holds every algorithm's fast checks to zod's
// answers on valid, mutated and random messages.
import { z } from 'zod';
import type { Message } from './algorithm.ts';

/** The message as its schema reads it, or null when it does not fit. */
export type MessageCheck = (message: object) => Message | null;

type Node = Record<string, unknown>;
type Field = { key: string; required: boolean; ok: (v: unknown) => boolean; copy: boolean };

/** The JSON Schema keywords read here; a node with any other cannot be checked here. */
const KNOWN = new Set(['$schema', 'type', 'const', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'items', 'properties', 'required']);

const num = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);

/** A value check for one JSON Schema node, or null when the node uses something not read here. */
function valueCheck(node: Node): ((v: unknown) => boolean) | null {
  if (Object.keys(node).some((k) => !KNOWN.has(k))) return null;
  switch (node['type']) {
    case 'integer': {
      const min = num(node['minimum'], Number.MIN_SAFE_INTEGER);
      const max = num(node['maximum'], Number.MAX_SAFE_INTEGER);
      return (v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
    }
    case 'string': {
      if (typeof node['const'] === 'string') {
        const c = node['const'];
        return (v) => v === c;
      }
      const min = num(node['minLength'], 0);
      const max = num(node['maxLength'], Infinity);
      return (v) => typeof v === 'string' && v.length >= min && v.length <= max;
    }
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'array': {
      const item = node['items'] && typeof node['items'] === 'object' ? valueCheck(node['items'] as Node) : null;
      if (!item) return null;
      const min = num(node['minItems'], 0);
      const max = num(node['maxItems'], Infinity);
      return (v) => {
        if (!Array.isArray(v) || v.length < min || v.length > max) return false;
        // Indexed, not every(): a hole is undefined to zod too.
        for (let i = 0; i < v.length; i++) if (!item(v[i])) return false;
        return true;
      };
    }
    default:
      return null;
  }
}

/** The fast check of one message schema (an object of plain fields), or null: use zod. */
export function compileCheck(schema: z.ZodType): MessageCheck | null {
  let json: Node;
  try {
    json = z.toJSONSchema(schema, { io: 'input' }) as Node;
  } catch {
    return null;
  }
  const props = json['properties'];
  if (json['type'] !== 'object' || !props || typeof props !== 'object' || Object.keys(json).some((k) => !KNOWN.has(k))) return null;
  const required = new Set(Array.isArray(json['required']) ? (json['required'] as string[]) : []);
  const fields: Field[] = [];
  for (const [key, node] of Object.entries(props as Record<string, Node>)) {
    const ok = valueCheck(node);
    if (!ok) return null;
    fields.push({ key, required: required.has(key), ok, copy: node['type'] === 'array' });
  }
  return (message) => {
    const m = message as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      // As zod reads an object: the value by property access, an absent optional field left out,
      // an optional field present as undefined kept as undefined.
      const v = m[f.key];
      if (v === undefined) {
        if (f.required) return null;
        if (f.key in m) out[f.key] = undefined;
        continue;
      }
      if (!f.ok(v)) return null;
      out[f.key] = f.copy ? (v as unknown[]).slice() : v;
    }
    return out as Message;
  };
}
