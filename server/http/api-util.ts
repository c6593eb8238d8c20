// Shared pieces of the REST layer: the instructor-token check, body validation against a
// schema, the :lab and :id lookups, and error answers built from the one error table (the body is the same error frame a
// socket gets). Every refused request is counted.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { ERRORS, errorFrame, type ErrorCode, type ErrorFrame } from '@shared/protocol/errors.ts';
import { ProcessIdSchema } from '@shared/protocol/lab-config.ts';
import type { Counters } from '../lab/counters.ts';
import type { Lab } from '../lab/lab.ts';
import type { Labs } from '../lab/labs.ts';
import { issuePaths } from '../lab/frame-check.ts';

export function sendError(res: Response, counters: Counters, error: ErrorFrame | ErrorCode): void {
  const frame = typeof error === 'string' ? errorFrame(error) : error;
  counters.inc(`http_${frame.code}`);
  if (frame.code === 'UNAUTHORIZED')
    res.setHeader('WWW-Authenticate', 'Bearer realm="election-lab"');
  res.status(ERRORS[frame.code].status).json(frame);
}

/**
 * Parses a request body; on failure answers 400 with the offending paths and returns null. A body
 * sent without a JSON content type is left unread by the JSON parser: refused, not taken as `{}`
 * (a fabric patch would otherwise succeed and change nothing).
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  req: Request,
  res: Response,
  counters: Counters,
): z.infer<S> | null {
  if (req.body === undefined && hasBody(req)) {
    sendError(
      res,
      counters,
      errorFrame('BAD_REQUEST', {
        message: 'Send the body as JSON, with Content-Type: application/json',
      }),
    );
    return null;
  }
  const parsed = schema.safeParse(req.body ?? {});
  if (parsed.success) return parsed.data;
  sendError(res, counters, errorFrame('BAD_REQUEST', { details: issuePaths(parsed.error) }));
  return null;
}

const hasBody = (req: Request): boolean =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Whether a request carries the instructor's token (`Authorization: Bearer <token>`). */
export function tokenCheck(token: string): (req: Request) => boolean {
  const expected = digest(token);
  return (req) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    return m !== null && timingSafeEqual(digest(m[1]!), expected);
  };
}

/** Middleware: `Authorization: Bearer <token>` must carry the instructor's token. */
export function requireToken(token: string, counters: Counters) {
  const ok = tokenCheck(token);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!ok(req)) return sendError(res, counters, 'UNAUTHORIZED');
    next();
  };
}

/** Express's body-parser errors (bad JSON, too large) and anything thrown, as error frames. */
export function errorHandler(counters: Counters, onError: (err: unknown) => void) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    const type = (err as { type?: string } | null)?.type;
    if (type === 'entity.parse.failed')
      return sendError(
        res,
        counters,
        errorFrame('BAD_JSON', { message: 'Request body is not valid JSON' }),
      );
    if (type === 'entity.too.large')
      return sendError(
        res,
        counters,
        errorFrame('FRAME_TOO_LARGE', { message: 'Request body exceeds the size limit' }),
      );
    const status = (err as { status?: number } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return sendError(res, counters, 'BAD_REQUEST');
    onError(err);
    sendError(res, counters, 'INTERNAL');
  };
}

/** What every resource's routes are built from (createApi in api.ts hands it out). */
export interface RouteDeps {
  labs: Labs;
  counters: Counters;
  /** Middleware: the instructor's token is required. */
  auth: RequestHandler;
}

/** Resolves :lab, answering 404 when there is none. */
export function labOf(deps: RouteDeps, req: Request, res: Response): Lab | null {
  const lab = deps.labs.get(String(req.params['lab']));
  if (!lab) sendError(res, deps.counters, 'UNKNOWN_LAB');
  return lab ?? null;
}

/** Resolves :id within a lab, answering 404 when the lab has no such process. */
export function idOf(deps: RouteDeps, req: Request, res: Response, lab: Lab): ProcessId | null {
  const id = ProcessIdSchema.safeParse(Number(req.params['id']));
  if (id.success && lab.processes.has(id.data)) return id.data;
  sendError(res, deps.counters, 'UNKNOWN_PROCESS');
  return null;
}
