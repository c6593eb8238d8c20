// GET /cluster, and in a cluster the redirect of a request for a lab another relay owns.
import express, { type Router } from 'express';
import type { Cluster } from '../cluster/cluster-member.ts';
import type { RouteDeps } from './api-util.ts';

/** Mount before the lab routes: the redirect must see /labs/:lab first. */
export function clusterRoutes(cluster: Cluster | undefined, deps: RouteDeps): Router {
  const r = express.Router();
  if (!cluster) {
    r.get('/cluster', (_req, res) => void res.json({ clustered: false, relays: [] }));
    return r;
  }
  // A lab another relay owns: redirect there (like Redis Cluster's MOVED); clients follow it.
  r.use('/labs/:lab', async (req, res, next) => {
    const name = String(req.params['lab']);
    if (deps.labs.get(name)) return next();
    const url = await cluster.locate(name);
    if (!url) return next();
    deps.counters.inc('moved');
    res.redirect(307, new URL(req.originalUrl, url).toString());
  });
  r.get('/cluster', async (_req, res) => {
    res.json({
      clustered: true,
      ...cluster.status(),
      relays: await cluster.relays().catch(() => []),
    });
  });
  return r;
}
