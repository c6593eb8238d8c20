// The lab's network: its link rules (PUT /labs/:lab/fabric) and its partition.
import express, { type Router } from 'express';
import { FabricPatchSchema, PartitionSchema } from '@shared/protocol/lab-config.ts';
import * as control from '../lab/lab-control.ts';
import { labOf, parseBody, sendError, type RouteDeps } from './api-util.ts';

export function fabricRoutes(deps: RouteDeps): Router {
  const { labs, counters, auth } = deps;
  const r = express.Router();
  r.put('/labs/:lab/fabric', auth, async (req, res) => {
    const lab = labOf(deps, req, res);
    const body = lab && parseBody(FabricPatchSchema, req, res, counters);
    if (!lab || !body) return;
    const fabric = control.setFabric(lab, body);
    await labs.save(lab);
    res.json(fabric);
  });

  r.post('/labs/:lab/partition', auth, async (req, res) => {
    const lab = labOf(deps, req, res);
    const body = lab && parseBody(PartitionSchema, req, res, counters);
    if (!lab || !body) return;
    const cut = control.partition(lab, body.groups);
    if (!cut.ok) return sendError(res, counters, cut.error);
    await labs.stateSaved(lab.name);
    res.json({ groups: cut.value });
  });

  r.delete('/labs/:lab/partition', auth, async (req, res) => {
    const lab = labOf(deps, req, res);
    if (!lab) return;
    control.partition(lab, null);
    await labs.stateSaved(lab.name);
    res.json({ groups: null });
  });
  return r;
}
