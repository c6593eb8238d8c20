// One QuickJS runtime for a student's module (student-wall.ts): a QuickJS runtime and context in
// the engine's WebAssembly memory, the prelude (wall-prelude.ts) inside, and the one way to call
// in: under a deadline measured around that call alone, with whatever comes back read as text.
import {
  DefaultIntrinsics,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { WallFault } from './module-fault.ts';
import {
  decodeTagged,
  encodeTagged,
  markThrows,
  memoryMessage,
  MODULE_URL,
  refusal,
  thrownInfo,
} from './wall-codec.ts';
import { WALL_PRELUDE } from './wall-prelude.ts';

/** The engine's own stack for her calls: small enough that QuickJS says "stack overflow" before the host's stack ends. */
const STACK_BYTES = 256 * 1024;
/** A result of hers larger than this (characters of JSON) is refused before the host parses it. */
const MAX_RESULT_CHARS = 4_000_000;

interface RuntimeOptions {
  memoryMb: number;
  stepMs: number;
  loadMs: number;
  clock: () => number;
  /** Told once if the engine itself breaks (a host exception inside it): it is not to be reused. */
  onBroken(): void;
}

type Answer = { value: unknown } | WallFault;

export class WallRuntime {
  broken = false;
  private readonly rt: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  private readonly fns: { bind: QuickJSHandle; call: QuickJSHandle; describe: QuickJSHandle };
  private deadline = Infinity;
  private interrupted = false;
  private random: () => number = () => 0;

  constructor(
    qjs: QuickJSWASMModule,
    private readonly opts: RuntimeOptions,
  ) {
    const rt = (this.rt = qjs.newRuntime());
    rt.setMemoryLimit(opts.memoryMb * 1024 * 1024);
    rt.setMaxStackSize(STACK_BYTES);
    rt.setInterruptHandler(() => {
      if (opts.clock() <= this.deadline) return false;
      this.interrupted = true;
      return true;
    });
    rt.setModuleLoader(() => ({ error: new Error('a module may not import anything') }));
    const ctx = (this.ctx = rt.newContext({ intrinsics: { ...DefaultIntrinsics, Date: false } }));
    const hostRandom = ctx.newFunction('random', () => ctx.newNumber(this.random()));
    const factory = ctx.unwrapResult(ctx.evalCode(WALL_PRELUDE, 'wall.js'));
    const api = ctx.unwrapResult(ctx.callFunction(factory, ctx.undefined, hostRandom));
    this.fns = {
      bind: ctx.getProp(api, 'bind'),
      call: ctx.getProp(api, 'call'),
      describe: ctx.getProp(api, 'describe'),
    };
    for (const h of [factory, api, hostRandom]) h.dispose();
  }

  /** Evaluates her module (every import refused) and reads her default export; a fault throws (kind load, runaway or memory). */
  load(source: string): unknown {
    const { ctx, rt, opts } = this;
    const loading = `the module did not finish loading within ${opts.loadMs} ms (an endless loop at the top level?)`;
    const fail = (f: WallFault): never => {
      this.dispose();
      throw f.info.kind === 'throw'
        ? new WallFault({
            ...f.info,
            kind: 'load',
            message: `the module threw while loading: ${f.info.message}`,
          })
        : f;
    };
    const evaluated = this.within(opts.loadMs, () =>
      ctx.evalCode(markThrows(source), MODULE_URL, { type: 'module' }),
    );
    if (evaluated.error) return fail(this.takeError(evaluated.error, loading));
    const ns = evaluated.value;
    const settled = this.within(opts.loadMs, () => {
      rt.executePendingJobs();
      return ctx.getPromiseState(ns);
    });
    if (settled.type === 'pending')
      fail(
        new WallFault({
          kind: 'load',
          message: "the module's top level awaits something that never comes",
        }),
      );
    if (settled.type === 'rejected') fail(this.takeError(settled.error, loading));
    const value = settled.type === 'fulfilled' ? settled.value : ns;
    const bound = this.answer(
      this.within(opts.loadMs, () => ctx.callFunction(this.fns.bind, ctx.undefined, value)),
      loading,
    );
    if (value !== ns && value.alive) value.dispose();
    ns.dispose();
    if (bound instanceof WallFault) fail(bound);
    return (bound as { value: unknown }).value;
  }

  /** One call of hers: interrupted once, it is run again alone before it is called a runaway. */
  invoke(
    name: 'init' | 'step' | 'report',
    args: unknown[],
    ctxArg?: { now: number; random: () => number },
  ): unknown {
    if (this.broken)
      throw new WallFault({
        kind: 'throw',
        message: 'not run: an earlier call stopped the engine',
      });
    const { ctx, opts } = this;
    const runaway = `a call did not return within ${opts.stepMs} ms (an endless loop?); run again alone, it did not return again`;
    const text = encodeTagged(args);
    for (let attempt = 0; ; attempt++) {
      this.random = ctxArg?.random ?? (() => 0);
      const res = this.within(opts.stepMs, () =>
        ctx
          .newString(name)
          .consume((n) =>
            ctx
              .newString(text)
              .consume((a) =>
                ctx
                  .newNumber(ctxArg?.now ?? 0)
                  .consume((t) => ctx.callFunction(this.fns.call, ctx.undefined, n, a, t)),
              ),
          ),
      );
      const interrupted = this.interrupted;
      const out = this.answer(res, runaway);
      if (!(out instanceof WallFault)) return out.value;
      if (interrupted && attempt === 0) continue;
      throw out;
    }
  }

  dispose(): void {
    // A broken engine is left as it is (freeing it would trip its own checks); it is dropped whole.
    if (this.broken || !this.ctx.alive) return;
    for (const h of Object.values(this.fns)) h.dispose();
    this.ctx.dispose();
    this.rt.dispose();
  }

  /** Runs `fn` with a deadline `ms` from now; a host exception (the engine's native stack overflowed) breaks the runtime for good. */
  private within<T>(ms: number, fn: () => T): T {
    this.interrupted = false;
    this.deadline = this.opts.clock() + ms;
    try {
      return fn();
    } catch (err) {
      this.broken = true;
      this.opts.onBroken();
      throw new WallFault({
        kind: 'throw',
        message: `the engine running the module stopped: ${String((err as Error)?.message ?? err)} (endless recursion in a built-in such as JSON.stringify?); nothing more of it runs`,
      });
    } finally {
      this.deadline = Infinity;
    }
  }

  /** An exception that escaped the prelude (an interrupt, memory, or her module's top level), as a fault; the handle is freed. */
  private takeError(err: QuickJSHandle, runaway: string): WallFault {
    try {
      if (this.interrupted) return new WallFault({ kind: 'runaway', message: runaway });
      const res = this.within(this.opts.stepMs, () =>
        this.ctx.callFunction(this.fns.describe, this.ctx.undefined, err),
      );
      if (res.error) {
        res.error.dispose();
        return new WallFault(
          this.interrupted
            ? { kind: 'runaway', message: runaway }
            : { kind: 'memory', message: memoryMessage(this.opts.memoryMb) },
        );
      }
      const text = this.ctx.getString(res.value);
      res.value.dispose();
      return new WallFault(thrownInfo(JSON.parse(text), this.opts.memoryMb));
    } finally {
      if (err.alive) err.dispose();
    }
  }

  /** A 'J' / 'R' / 'T' answer of the prelude, as a value or a fault. */
  private answer(res: ReturnType<QuickJSContext['callFunction']>, runaway: string): Answer {
    if (res.error) return this.takeError(res.error, runaway);
    const text = this.ctx.typeof(res.value) === 'string' ? this.ctx.getString(res.value) : '';
    res.value.dispose();
    if (text.length > MAX_RESULT_CHARS)
      return new WallFault({
        kind: 'effects',
        message: `a result of ${text.length} characters of JSON; at most ${MAX_RESULT_CHARS} cross the wall`,
      });
    if (text[0] === 'J') return { value: decodeTagged(text.slice(1)) };
    if (text[0] === 'R') return refusal(text.slice(1));
    if (text[0] === 'T')
      return new WallFault(thrownInfo(JSON.parse(text.slice(1)), this.opts.memoryMb));
    return new WallFault({
      kind: 'throw',
      message: 'the sandbox answered something that is not a result',
    });
  }
}
