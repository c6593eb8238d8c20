// The sandbox behind a tab in code mode: a Web Worker that holds a student's module (behind the
// QuickJS wall, student-wall.ts, which bounds each call's time and her memory) and its state, and
// runs one call at a time for the tab (sandbox-host.ts), which keeps the timers, the connection
// and a backstop watchdog. Each reply is the call's effects, already checked by
// student.ts (her reports are derived, the host's failure detector runs here beside her code),
// or the fault that stopped it. Nothing here touches the network: the tab does, after checking
// again what comes back.
import type {
  AlgorithmConfig,
  AlgorithmEvent,
  AlgorithmName,
  Effect,
} from '../algorithms/algorithm.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';
import { checkSource } from './module-check.ts';
import { ModuleFault, WallFault, type FaultInfo } from './module-fault.ts';
import { studentAlgorithm, type Boxed } from './student.ts';
import { openWalled, type WalledModule } from './student-wall.ts';

export type SandboxRequest =
  | {
      kind: 'load';
      source: string;
      algorithm: AlgorithmName;
      config: AlgorithmConfig;
      seed: number;
      now: number;
      stepMs: number;
      memoryMb: number;
    }
  | { kind: 'event'; event: AlgorithmEvent; now: number };

export type SandboxReply =
  | { kind: 'ready' }
  /** Loaded and started: her message types (the tab checks sends against them), then init's effects. */
  | { kind: 'loaded'; messageTypes: string[]; effects: Effect[] }
  | { kind: 'load-error'; fault: FaultInfo }
  | { kind: 'stepped'; effects: Effect[] }
  /** The call failed: the event is dropped, her state stays as it was before it. */
  | { kind: 'fault'; fault: FaultInfo };

interface Loaded {
  wall: WalledModule;
  algorithm: ReturnType<typeof studentAlgorithm>;
  state: Boxed;
  random: () => number;
}

/** The worker's message handler. */
export function sandboxHandler(post: (m: SandboxReply) => void, clock: () => number) {
  let loaded: Loaded | null = null;
  let loading: Promise<void> | null = null;

  const load = async (req: Extract<SandboxRequest, { kind: 'load' }>) => {
    // A load after a runaway starts her process afresh in this worker: the old runtime goes first.
    loaded?.wall.dispose();
    loaded = null;
    const problems = checkSource(req.source);
    if (problems.length > 0) {
      const p = problems[0]!;
      return post({
        kind: 'load-error',
        fault: { kind: 'load', message: p.message, line: p.line, column: p.column },
      });
    }
    let mod: WalledModule;
    try {
      mod = await openWalled(req.source, {
        memoryMb: req.memoryMb,
        stepMs: req.stepMs,
        loadMs: Math.max(1000, 2 * req.stepMs),
        clock,
      });
    } catch (err) {
      return post({
        kind: 'load-error',
        fault:
          err instanceof WallFault
            ? err.info
            : { kind: 'load', message: `the module did not load: ${String(err)}` },
      });
    }
    try {
      const algorithm = studentAlgorithm(mod.exports, { algorithm: req.algorithm, url: mod.url });
      const random = createRng(deriveSeed(req.seed, req.config.self));
      const out = algorithm.init(req.config, { now: req.now, random });
      loaded = { wall: mod, algorithm, state: out.state, random };
      const types = (mod.exports as { default: { messageTypes: string[] } }).default.messageTypes;
      post({ kind: 'loaded', messageTypes: [...types], effects: out.effects });
    } catch (err) {
      mod.dispose();
      post({
        kind: 'load-error',
        fault: err instanceof ModuleFault ? err.info : { kind: 'load', message: String(err) },
      });
    }
  };

  return (req: SandboxRequest) => {
    if (req.kind === 'load') {
      loading = load(req);
      return;
    }
    const run = () => {
      if (!loaded) return;
      try {
        const out = loaded.algorithm.step(loaded.state, req.event, {
          now: req.now,
          random: loaded.random,
        });
        loaded.state = out.state;
        post({ kind: 'stepped', effects: out.effects });
      } catch (err) {
        post({
          kind: 'fault',
          fault: err instanceof ModuleFault ? err.info : { kind: 'throw', message: String(err) },
        });
      }
    };
    if (loading && !loaded) void loading.then(run);
    else run();
  };
}
