// The wire contract as data: docs/schema.json is JSON Schema 2020-12, docs/openapi.json is OpenAPI
// 3.1, every JSON example of docs/PROTOCOL.md matches the schema, and the relay serves exactly
// the checked-in files.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_FRAME_TYPES, PROTOCOL_VERSION } from '@shared/protocol/frames.ts';
import { createRelay, type Relay } from '../../server/relay.ts';

const docs = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');
const REGENERATE =
  'docs/ is out of date with the zod schemas: run `npm run contract` and commit docs/schema.json and docs/openapi.json (do not edit them by hand)';

/** The JSON values of PROTOCOL.md's ```json blocks: a block is one value, or one value per line (a trailing // comment allowed). */
function protocolExamples(): unknown[] {
  const text = docs('PROTOCOL.md');
  const out: unknown[] = [];
  for (const m of text.matchAll(/```json\n([\s\S]*?)```/g)) {
    const block = m[1]!;
    try {
      out.push(JSON.parse(block));
      continue;
    } catch {
      /* one value per line */
    }
    for (const line of block.split('\n')) {
      const value = line.replace(/}\s+\/\/.*$/, '}').trim();
      if (value) out.push(JSON.parse(value));
    }
  }
  return out;
}

describe('the wire contract', () => {
  let relay: Relay;
  let base: string;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'contract-'));
    relay = await createRelay({ dataDir, token: 't', onError: () => {} });
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await relay?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves /api/schema.json and /api/openapi.json equal to the checked-in docs/ files', async () => {
    for (const name of ['schema.json', 'openapi.json']) {
      const res = await fetch(`${base}/api/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.text(), REGENERATE).toBe(docs(name));
    }
  });

  it('docs/schema.json is valid JSON Schema 2020-12 and carries the protocol version', () => {
    const schema = JSON.parse(docs('schema.json'));
    const ajv = new Ajv2020({ strict: false });
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
    expect(schema['x-protocol-version']).toBe(PROTOCOL_VERSION);
    const joined = schema.$defs.ServerFrame.oneOf ?? schema.$defs.ServerFrame.anyOf;
    expect(JSON.stringify(joined)).toContain('"protocol"');
  });

  it('docs/openapi.json is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(JSON.parse(docs('openapi.json')));
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('every JSON example in docs/PROTOCOL.md matches the schema, and a wrong frame does not', () => {
    const schema = JSON.parse(docs('schema.json'));
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(schema);
    const check = (def: string) => ajv.getSchema(`${schema.$id}#/$defs/${def}`)!;
    const defOf = (v: Record<string, unknown>) =>
      v['kind'] === 'header'
        ? 'TraceHeader'
        : 'seq' in v
          ? 'TraceEvent'
          : 'type' in v
            ? (CLIENT_FRAME_TYPES as readonly string[]).includes(String(v['type']))
              ? 'ClientFrame'
              : 'ServerFrame'
            : 'ProcessConfig';
    const examples = protocolExamples() as Record<string, unknown>[];
    expect(examples.length).toBeGreaterThan(10);
    for (const ex of examples) {
      const validate = check(defOf(ex));
      expect(validate(ex), `${JSON.stringify(ex)}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(check('ClientFrame')({ type: 'send', to: 3 })).toBe(false);
    expect(check('ServerFrame')({ type: 'joined', lab: 'x' })).toBe(false);
  });
});
