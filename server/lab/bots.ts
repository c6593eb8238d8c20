// Server-side bots: processes the relay runs itself, so an instructor can top up a class ring
// from the panel (POST /api/labs/:lab/bots {count, ids?}; DELETE removes them). They are the
// same BotFleet / LabProcess a headless bot or a browser tab runs, over an in-process channel:
// each bot gets a relay session of its own, so it is joined, rate-limited, stamped, delayed,
// crashed and traced exactly like a remote process (its transport shows as 'server'). Their REST
// routes are in server/http/bot-routes.ts.
import type { AlgorithmName, ProcessId, AnyAlgorithm } from '@shared/algorithms/algorithm.ts';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { fail, ok, type Result } from '@shared/protocol/errors.ts';
import type { ChannelFactory } from '@shared/lab-client/lab-client.ts';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import { newConnId, type Conn } from './conn.ts';
import type { Labs } from './labs.ts';
import type { Session } from './session.ts';

/**
 * A channel into the relay without a socket. Frames to the bot are handed over in a microtask,
 * never synchronously, so a bot's reply cannot re-enter the lab in the middle of a delivery.
 */
function serverChannel(openSession: (conn: Conn) => Session): ChannelFactory {
  return (events) => {
    let closed = false;
    const shut = (): void => {
      if (closed) return;
      closed = true;
      session.close();
      events.close();
    };
    const conn: Conn = {
      id: newConnId(),
      transport: 'server',
      sendText: (json) => {
        if (!closed) queueMicrotask(() => !closed && events.frame(JSON.parse(json) as ServerFrame));
      },
      overloaded: () => false,
      close: shut,
    };
    const session = openSession(conn);
    queueMicrotask(() => !closed && events.open());
    return { send: (frame) => !closed && session.onFrame(frame, false), close: shut };
  };
}

interface ServerBotsDeps {
  labs: Labs;
  /** The relay's session factory (Relay.session). */
  session: (conn: Conn) => Session;
  /** The bots' algorithms (default: the registry). A seam for tests of fault containment. */
  registry?: (name: AlgorithmName) => AnyAlgorithm;
}

interface BotsStarted {
  requested: number;
  started: ProcessId[];
  refused: { index: number; code: string; message: string }[];
}

export class ServerBots {
  private readonly fleets = new Map<string, BotFleet[]>();

  constructor(private readonly deps: ServerBotsDeps) {}

  /** Starts `count` bots on the given ids, or on the lab's lowest free ids (as many as are free). */
  async start(
    labName: string,
    req: { count: number; ids?: ProcessId[] },
  ): Promise<Result<BotsStarted>> {
    const lab = this.deps.labs.get(labName);
    if (!lab) return fail('UNKNOWN_LAB');
    let ids: ProcessId[];
    if (req.ids) {
      if (req.ids.length < req.count)
        return fail('BAD_REQUEST', {
          details: ['ids'],
          message: 'Give at least `count` ids, or none',
        });
      ids = req.ids.slice(0, req.count);
      const unknown = ids.filter((id) => !lab.processes.has(id));
      if (unknown.length)
        return fail('ID_NOT_IN_LAB', { details: unknown.slice(0, 10).map((id) => `ids: ${id}`) });
    } else {
      ids = lab.processes.free(lab.deps.clock.now()).slice(0, req.count);
      if (ids.length === 0) return fail('LAB_FULL');
    }
    const fleet = new BotFleet({
      lab: labName,
      channel: () => serverChannel(this.deps.session),
      count: ids.length,
      ids,
      name: (i) => `server-bot-${ids[i]}`,
      ...(this.deps.registry ? { registry: this.deps.registry } : {}),
    });
    const list = this.fleets.get(labName) ?? [];
    list.push(fleet);
    this.fleets.set(labName, list);
    const r = await fleet.start();
    return ok({ requested: req.count, started: r.joined, refused: r.refused });
  }

  hasLab(labName: string): boolean {
    return this.deps.labs.get(labName) !== undefined;
  }

  /** Ids of this lab's server bots that are still in it. */
  list(labName: string): ProcessId[] {
    const ids: ProcessId[] = [];
    for (const f of this.fleets.get(labName) ?? []) {
      for (const p of f.processes)
        if (p.id !== null && (p.status === 'up' || p.status === 'crashed')) ids.push(p.id);
    }
    return ids.sort((a, b) => a - b);
  }

  /** Every server bot of the lab leaves it. Returns the ids that left. */
  stop(labName: string): ProcessId[] {
    const ids = this.list(labName);
    for (const f of this.fleets.get(labName) ?? []) f.stop();
    this.fleets.delete(labName);
    return ids;
  }

  /** Stops every bot (their timers would otherwise keep the process alive). Call before the relay closes. */
  closeAll(): void {
    for (const name of [...this.fleets.keys()]) this.stop(name);
  }
}
