// npm run contract: writes docs/schema.json and docs/openapi.json from the zod schemas. The relay
// serves the same text; test/contract.test.ts fails until the checked-in files are regenerated.
import { writeFileSync } from 'node:fs';
import { buildOpenApi, buildSchema, contractText } from '@shared/protocol/contract.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log('Usage: npm run contract\n\nWrites docs/schema.json (JSON Schema 2020-12 of the frames and trace events)\nand docs/openapi.json (OpenAPI 3.1 of the REST API), generated from the zod schemas.');
  process.exit(0);
}
if (args.length) {
  console.error(`contract: unknown option '${args[0]}' (try --help)`);
  process.exit(2);
}
const root = new URL('../docs/', import.meta.url);
writeFileSync(new URL('schema.json', root), contractText(buildSchema()));
writeFileSync(new URL('openapi.json', root), contractText(buildOpenApi()));
console.log('wrote docs/schema.json and docs/openapi.json');
