// GET /api/labs/:lab/trace: the lab's trace as JSON Lines (everything, or `?since=<seq>` for
// events after that one), or `?format=shiviz` for ShiViz. Buffered events are flushed first, and
// the file is streamed with backpressure, so a long trace never sits in memory.
import { createReadStream } from 'node:fs';
import express, { type Request, type Response, type Router } from 'express';
import { errorFrame } from '@shared/protocol/errors.ts';
import { labOf, sendError, type RouteDeps } from './api-util.ts';
import type { Counters } from '../lab/counters.ts';
import type { Lab } from '../lab/lab.ts';
import { shivizLines } from '../trace/shiviz.ts';
import { exists, readTrace } from '../trace/trace-store.ts';

export function traceRoutes(deps: RouteDeps): Router {
  const r = express.Router();
  r.get('/labs/:lab/trace', async (req, res) => {
    const lab = labOf(deps, req, res);
    if (lab) await sendTrace(lab, req, res, deps.counters);
  });
  return r;
}

async function sendTrace(lab: Lab, req: Request, res: Response, counters: Counters): Promise<void> {
  const format = req.query['format'] ?? 'jsonl';
  const sinceRaw = req.query['since'];
  const since = sinceRaw === undefined ? null : Number(sinceRaw);
  if ((format !== 'jsonl' && format !== 'shiviz') || (since !== null && !Number.isInteger(since))) {
    return sendError(
      res,
      counters,
      errorFrame('BAD_REQUEST', { details: ['format: jsonl or shiviz', 'since: an integer seq'] }),
    );
  }
  const store = lab.deps.store;
  await store.flush();
  const name = `${lab.name}${format === 'shiviz' ? '.shiviz.log' : '.jsonl'}`;
  res.setHeader(
    'Content-Type',
    format === 'shiviz' ? 'text/plain; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
  );
  res.setHeader('Content-Disposition', `inline; filename="${name}"`);
  if (format === 'jsonl' && since === null) {
    if (!(await exists(store.path))) return void res.end();
    const stream = createReadStream(store.path);
    stream.on('error', () => res.destroy());
    return void stream.pipe(res);
  }
  const events = readTrace(store.path);
  const lines =
    format === 'shiviz'
      ? shivizLines(events)
      : (async function* () {
          for await (const e of events) if (e.seq > since!) yield JSON.stringify(e) + '\n';
        })();
  for await (const line of lines) {
    if (!res.write(line)) await drained(res);
    if (res.destroyed) return;
  }
  res.end();
}

/** Resolves when the response can take more, or is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
