// npm run contract: writes docs/schema.json and docs/openapi.json from the zod schemas. The relay
// serves the same text; test/relay/contract.test.ts fails until the checked-in files are regenerated.
import { writeFileSync } from 'node:fs';
import { buildSchema, contractText } from '@shared/protocol/contract.ts';
import { buildOpenApi } from '@shared/protocol/openapi.ts';
import { handleHelp, usageError } from './cli.ts';

const USAGE = `Usage: npm run contract

Writes docs/schema.json (JSON Schema 2020-12 of the frames and trace events) and
docs/openapi.json (OpenAPI 3.1 of the REST API), generated from the zod schemas.`;
const args = process.argv.slice(2);
handleHelp(args, USAGE);
if (args.length) usageError('contract', USAGE, new Error(`Unknown option '${args[0]}'`));
const root = new URL('../docs/', import.meta.url);
writeFileSync(new URL('schema.json', root), contractText(buildSchema()));
writeFileSync(new URL('openapi.json', root), contractText(buildOpenApi()));
console.log('wrote docs/schema.json and docs/openapi.json');
