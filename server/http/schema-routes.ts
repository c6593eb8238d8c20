// The wire contract as data (GET /schema.json, /openapi.json) and the algorithms a lab may run.
import express, { type Router } from 'express';
import { ALGORITHMS } from '@shared/algorithms/registry.ts';
import { ALGORITHM_NAMES } from '@shared/algorithms/algorithm.ts';
import { buildSchema, contractText } from '@shared/protocol/contract.ts';
import { buildOpenApi } from '@shared/protocol/openapi.ts';

export function schemaRoutes(): Router {
  const r = express.Router();
  // Built once from the zod schemas (shared/protocol/contract.ts).
  const schemaText = contractText(buildSchema());
  const openApiText = contractText(buildOpenApi());
  r.get('/schema.json', (_req, res) => void res.type('application/json').send(schemaText));
  r.get('/openapi.json', (_req, res) => void res.type('application/json').send(openApiText));
  r.get('/algorithms', (_req, res) => {
    res.json(
      ALGORITHM_NAMES.map((name) => ({ name, messageTypes: ALGORITHMS[name].messageTypes })),
    );
  });
  return r;
}
