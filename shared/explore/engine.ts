// The explorer's stepping engine: the same Algorithm contract as the simulator, but instead of
// running one schedule it exposes every choice. A world holds each process's state and the
// pending events (messages in flight, timers, detections), each with a time window; any event
// whose window opens before the earliest deadline may fire next, and faults (crash, drop,
// partition, slow link) may strike between events. Worlds are immutable values, so the search
// can branch freely.
//
// The network is the shared model's (shared/sim/network.ts): the partition rule is its
// `groupOf`, and a message's window is the model's arrival window for a link of delay 0 and
// jitter T (the lab's transmission bound), its jitter turned into a choice. A slow link's
// messages may arrive at any later time; links are FIFO; a timer fires exactly when due. An
// event fires either as early as it can or as late as it may, which covers the extreme orders
// of what follows it. Effects are carried out by the shared executor (shared/sim/executor.ts).
//
// The rooms: world.ts (what a world and an action are), draft.ts (a world being
// made: the algorithm step, remembered, and its effects), hash.ts (fingerprints),
// search.ts (the breadth-first search over worlds).
import type { AlgorithmConfig, ProcessId } from '../algorithms/algorithm.ts';
import { WorldDraft } from './draft.ts';
import { sigOfElect } from './hash.ts';
import { checkSafety } from '../analysis/properties.ts';
import {
  deadline,
  DOWN,
  live,
  reportsOf,
  type Action,
  type ExploreSetup,
  type Pending,
  type Recorder,
  type World,
} from './world.ts';
import { separated } from '../sim/network.ts';

export function initialWorld(setup: ExploreSetup, rec?: Recorder): World {
  const w = new WorldDraft(
    setup,
    {
      now: 0,
      procs: setup.ids.map(() => DOWN),
      pending: [],
      used: { crash: 0, restart: 0, drop: 0, partition: 0, slow: 0 },
      groups: null,
      slow: null,
      nextId: 1,
      fresh: true,
      twoLeadersSince: null,
    },
    rec,
  );
  for (const id of setup.ids) {
    if (setup.crashed.includes(id)) {
      rec?.({ t: 0, kind: 'crash', node: id });
      continue;
    }
    w.run(id, configOf(setup, id, true), null);
  }
  for (const node of setup.initiators) {
    if (setup.crashed.includes(node)) continue;
    w.pending.push({
      id: w.nextId++,
      sig: sigOfElect(node, false),
      kind: 'elect',
      earliest: 0,
      latest: setup.detectWindow,
      node,
      watch: false,
    });
  }
  w.detect();
  return w.done();
}

/** A process's config: at the start (the steady coordinator, if any) or after a restart (none: it holds an election). */
function configOf(setup: ExploreSetup, self: ProcessId, start: boolean): AlgorithmConfig {
  const config: AlgorithmConfig = {
    self,
    ids: setup.ids,
    ring: setup.ids,
    timing: setup.timing,
    detector: setup.detector,
    options: setup.options,
  };
  if (start) config.initialCoordinator = setup.initialCoordinator;
  return config;
}

export function enabled(setup: ExploreSetup, w: World): Action[] {
  const out: Action[] = [];
  const up = live(setup, w);
  // A link slow from the start allows everything a link that turns slow later does (slowness
  // only lifts the upper bound), so the slow link is chosen once, first.
  if (w.fresh && setup.budget.slow > 0) {
    for (const from of up)
      for (const to of up) if (from !== to) out.push({ kind: 'slow', from, to });
    return out;
  }
  const d = deadline(w);
  const lossy = w.used.drop < setup.budget.drop;
  const pending = w.pending;
  for (let i = 0; i < pending.length; i++) {
    const p = pending[i]!;
    if (p.earliest > d) continue;
    // Links are FIFO (as in the network model without reordering): only a link's oldest message may arrive.
    if (p.kind === 'deliver' && !oldestOnLink(pending, i)) continue;
    out.push({ kind: 'fire', id: p.id, at: 'early' });
    // Firing as late as allowed is a different world only when that is later and finite.
    if (setup.extremes && d !== Infinity && d > Math.max(w.now, p.earliest))
      out.push({ kind: 'fire', id: p.id, at: 'late' });
    if (lossy && p.kind === 'deliver') out.push({ kind: 'drop', id: p.id });
  }
  if (w.used.crash < setup.budget.crash) for (const node of up) out.push({ kind: 'crash', node });
  if (w.used.restart < setup.budget.restart)
    for (let i = 0; i < setup.ids.length; i++)
      if (w.procs[i]!.state === null) out.push({ kind: 'restart', node: setup.ids[i]! });
  if (w.groups) out.push({ kind: 'heal' });
  else if (w.used.partition < setup.budget.partition)
    for (const g of splits(up)) out.push({ kind: 'partition', groups: g });
  return out;
}

/** Whether `pending[i]` (a message) is its link's oldest (no message on its link has a smaller id). */
function oldestOnLink(pending: readonly Pending[], i: number): boolean {
  const p = pending[i] as Extract<Pending, { kind: 'deliver' }>;
  for (let j = 0; j < pending.length; j++) {
    const q = pending[j]!;
    if (q.kind === 'deliver' && q.id < p.id && q.from === p.from && q.to === p.to) return false;
  }
  return true;
}

/** Every way to cut the live processes into two non-empty groups (each cut once). */
function splits(ids: readonly ProcessId[]): ProcessId[][][] {
  const out: ProcessId[][][] = [];
  const n = ids.length;
  for (let mask = 1; mask < 1 << (n - 1); mask++) {
    const a = ids.filter((_, i) => i < n - 1 && mask & (1 << i));
    out.push([a, ids.filter((id) => !a.includes(id))]);
  }
  return out;
}

/** One move of the search: the world after `action`. (`step` names only an algorithm's transition.) */
export function move(setup: ExploreSetup, w0: World, action: Action, rec?: Recorder): World {
  const w = moveOnce(setup, w0, action, rec);
  if (setup.overlap === undefined) return w;
  // An overlap that outlived the bound stays on record even if this move ended it (it lasted until now).
  const expired = w0.twoLeadersSince !== null && w.now - w0.twoLeadersSince > setup.overlap;
  const since =
    expired || checkSafety(live(setup, w), reportsOf(setup, w))
      ? (w0.twoLeadersSince ?? w.now)
      : null;
  return since === w.twoLeadersSince ? w : { ...w, twoLeadersSince: since };
}

function moveOnce(setup: ExploreSetup, w0: World, action: Action, rec?: Recorder): World {
  const w = new WorldDraft(setup, w0, rec);
  w.fresh = false;
  switch (action.kind) {
    case 'fire':
      return fire(w, w0, action);
    case 'crash':
      return crash(w, action.node);
    case 'restart': {
      w.used = { ...w.used, restart: w.used.restart + 1 };
      rec?.({ t: w.now, kind: 'recover', node: action.node });
      // Its random stream goes on where it stopped (draws kept at the crash), its memory does not.
      w.run(action.node, configOf(setup, action.node, false), null);
      if (w.used.restart >= setup.budget.restart) w.forgetDownDraws();
      w.detect();
      return w.done();
    }
    case 'drop': {
      w.used = { ...w.used, drop: w.used.drop + 1 };
      const p = w.take(action.id);
      if (p) w.now = Math.max(w.now, p.earliest);
      if (p?.kind === 'deliver') w.dropped(p, 'manual');
      return w.done();
    }
    case 'partition':
      w.used = { ...w.used, partition: w.used.partition + 1 };
      w.groups = action.groups;
      rec?.({ t: w.now, kind: 'partition', groups: action.groups });
      return w.done();
    case 'heal':
      w.groups = null;
      rec?.({ t: w.now, kind: 'partition', groups: null });
      return w.done();
    case 'slow':
      return slowLink(w, action.from, action.to);
  }
}

/** A pending event fires (as early as it can or as late as it may): its process steps. */
function fire(w: WorldDraft, w0: World, action: Extract<Action, { kind: 'fire' }>): World {
  const p = w.take(action.id)!;
  w.now = action.at === 'late' ? deadline(w0) : Math.max(w.now, p.earliest);
  const node = p.kind === 'deliver' ? p.to : p.node;
  if (w.proc(node).state === null) {
    if (p.kind === 'deliver') w.dropped(p, 'receiver-crashed');
    return w.done();
  }
  // As in the network model: a message still in flight when a cut separates its ends is dropped when due.
  if (p.kind === 'deliver' && separated(w.groups, p.from, p.to)) {
    w.dropped(p, 'partition');
    return w.done();
  }
  const rec = w.rec;
  if (p.kind === 'deliver')
    rec?.({ t: w.now, kind: 'deliver', msg: p.id, from: p.from, to: p.to, type: p.message.type });
  else if (p.kind === 'timer') rec?.({ t: w.now, kind: 'timer', node, name: p.name });
  else rec?.({ t: w.now, kind: 'elect', node });
  w.run(node, null, p);
  // Only this process's report and pending detections changed: the others are as detect() left
  // them (with crashes or restarts, a new leader may be heard by all).
  w.detect(w.hears ? undefined : node);
  return w.done();
}

function crash(w: WorldDraft, node: ProcessId): World {
  w.used = { ...w.used, crash: w.used.crash + 1 };
  w.setProc(node, w.downProc(w.proc(node).draws));
  w.rec?.({ t: w.now, kind: 'crash', node });
  // Its timers die with it; messages to it would only be dropped on arrival.
  for (const p of w.pending)
    if (p.kind === 'deliver' && p.to === node) w.dropped(p, 'receiver-crashed');
  w.pending = w.pending.filter((p) => (p.kind === 'deliver' ? p.to !== node : p.node !== node));
  w.detect();
  return w.done();
}

function slowLink(w: WorldDraft, from: ProcessId, to: ProcessId): World {
  w.used = { ...w.used, slow: w.used.slow + 1 };
  w.slow = [from, to];
  // Messages already on the link may now be late too.
  w.pending = w.pending.map((p) =>
    p.kind === 'deliver' && p.from === from && p.to === to ? { ...p, latest: Infinity } : p,
  );
  w.rec?.({
    t: w.now,
    kind: 'note',
    text: `link ${from}->${to} is slow from now on: its messages may arrive after any timeout`,
  });
  return w.done();
}
