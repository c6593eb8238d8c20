// The hot path's check of a message, made from its zod schema. zod's safeParse (about 115 ns a
// Bully message here) was a large share of the simulator's time on the 1,000-process worst case
// (a million messages, each parsed on arrival), so each message schema is read once, through
// zod's own JSON Schema of it, into a plain check of the same fields, the same way, building the
// same result (known fields only, in the schema's order; arrays copied): about 75 ns. The schema
// stays the one source of truth: a schema using anything not read here (a pattern, a union, a
// strict object...) gets no fast check and is parsed by zod, and test/unit/message-check.test.ts holds
// every algorithm's fast checks to zod's answers on valid, mutated and random messages.
import { z } from 'zod';
import type { Message } from './algorithm.ts';

/** The message as its schema reads it, or null when it does not fit. */
export type MessageCheck = (message: object) => Message | null;

type SchemaNode = Record<string, unknown>;

/** What a field must be; one record shape for every field, so the check's loop stays monomorphic. */
type Kind = 'int' | 'str' | 'const' | 'bool' | 'int-list' | 'str-list';
interface Field {
  key: string;
  required: boolean;
  kind: Kind;
  /** Bounds: of the value (int), of its length (str, lists); the items' value or length bounds (lists). */
  min: number;
  max: number;
  itemMin: number;
  itemMax: number;
  value: string;
}

/** The JSON Schema keywords read here; a node with any other cannot be checked here. */
const KNOWN = new Set([
  '$schema',
  'type',
  'const',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'items',
  'properties',
  'required',
]);

const num = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);
const plain = (node: SchemaNode) => Object.keys(node).every((k) => KNOWN.has(k));

/** A field's record for one JSON Schema node, or null when the node uses something not read here. */
function fieldOf(key: string, required: boolean, node: SchemaNode): Field | null {
  if (!plain(node)) return null;
  const f: Field = {
    key,
    required,
    kind: 'int',
    min: 0,
    max: 0,
    itemMin: 0,
    itemMax: 0,
    value: '',
  };
  switch (node['type']) {
    case 'integer':
      return {
        ...f,
        kind: 'int',
        min: num(node['minimum'], Number.MIN_SAFE_INTEGER),
        max: num(node['maximum'], Number.MAX_SAFE_INTEGER),
      };
    case 'string':
      if (typeof node['const'] === 'string') return { ...f, kind: 'const', value: node['const'] };
      return {
        ...f,
        kind: 'str',
        min: num(node['minLength'], 0),
        max: num(node['maxLength'], Infinity),
      };
    case 'boolean':
      return { ...f, kind: 'bool' };
    case 'array': {
      const items = node['items'] as SchemaNode | undefined;
      if (!items || typeof items !== 'object' || !plain(items) || items['const'] !== undefined)
        return null;
      const list = { ...f, min: num(node['minItems'], 0), max: num(node['maxItems'], Infinity) };
      if (items['type'] === 'integer') {
        const itemMin = num(items['minimum'], Number.MIN_SAFE_INTEGER);
        return {
          ...list,
          kind: 'int-list',
          itemMin,
          itemMax: num(items['maximum'], Number.MAX_SAFE_INTEGER),
        };
      }
      if (items['type'] === 'string')
        return {
          ...list,
          kind: 'str-list',
          itemMin: num(items['minLength'], 0),
          itemMax: num(items['maxLength'], Infinity),
        };
      return null;
    }
    default:
      return null;
  }
}

const isInt = (v: unknown, min: number, max: number) =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
const isStr = (v: unknown, min: number, max: number) =>
  typeof v === 'string' && v.length >= min && v.length <= max;

function fits(f: Field, v: unknown): boolean {
  switch (f.kind) {
    case 'int':
      return isInt(v, f.min, f.max);
    case 'str':
      return isStr(v, f.min, f.max);
    case 'const':
      return v === f.value;
    case 'bool':
      return typeof v === 'boolean';
    default: {
      if (!Array.isArray(v) || v.length < f.min || v.length > f.max) return false;
      // Indexed, not every(): a hole is undefined to zod too.
      const ints = f.kind === 'int-list';
      for (let i = 0; i < v.length; i++)
        if (!(ints ? isInt(v[i], f.itemMin, f.itemMax) : isStr(v[i], f.itemMin, f.itemMax)))
          return false;
      return true;
    }
  }
}

/** The fast check of one message schema (an object of plain fields), or null: use zod. */
export function compileCheck(schema: z.ZodType): MessageCheck | null {
  let json: SchemaNode;
  try {
    json = z.toJSONSchema(schema, { io: 'input' }) as SchemaNode;
  } catch {
    return null;
  }
  const props = json['properties'];
  if (json['type'] !== 'object' || !props || typeof props !== 'object' || !plain(json)) return null;
  const required = new Set(Array.isArray(json['required']) ? (json['required'] as string[]) : []);
  const fields: Field[] = [];
  for (const [key, node] of Object.entries(props as Record<string, SchemaNode>)) {
    const f = fieldOf(key, required.has(key), node);
    if (!f) return null;
    fields.push(f);
  }
  return (message) => {
    const m = message as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      // As zod reads an object: the value by property access, an absent optional field left out,
      // an optional field present as undefined kept as undefined.
      const v = m[f.key];
      if (v === undefined) {
        if (f.required) return null;
        if (f.key in m) out[f.key] = undefined;
        continue;
      }
      if (!fits(f, v)) return null;
      out[f.key] = f.kind === 'int-list' || f.kind === 'str-list' ? (v as unknown[]).slice() : v;
    }
    return out as Message;
  };
}
