// The wall around a student's module: her code runs in QuickJS compiled to WebAssembly (a separate
// JavaScript engine, the same in Node and in the browser), never in the realm of the grader or the
// tab. Inside it there is no file system, process, network, worker, import, clock, storage or
// SharedArrayBuffer reaching the host; the engine's memory limit counts everything she allocates,
// ArrayBuffers included; an interrupt handler bounds each call on its own. What crosses is JSON:
// arguments go in as text, her results come back as text the host parses (wall-prelude.ts is the
// inside half, wall-runtime.ts one QuickJS runtime, wall-codec.ts what crosses). The exports
// returned here are host-side functions standing for hers, so studentAlgorithm (student.ts)
// checks them exactly as it checks any module.
import variant from '@jitl/quickjs-singlefile-mjs-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { WallFault } from './module-fault.ts';
import { MODULE_URL, refusal, thrownInfo, type Thrown } from './wall-codec.ts';
import { WallRuntime } from './wall-runtime.ts';

export { decodeTagged, encodeTagged } from './wall-codec.ts';

interface WallOptions {
  /** The engine's memory limit, MB: everything she allocates counts. */
  memoryMb: number;
  /** Each call may take this long (ms); one interrupted is run once more before it is a runaway. */
  stepMs: number;
  /** Her module's top-level code may take this long (ms). */
  loadMs: number;
  clock: () => number;
}

export interface WalledModule {
  /** `{ default: { name, messageTypes, init, step, report } }`: host functions that call hers across the wall. */
  exports: unknown;
  /** How stack traces name her module. */
  url: string;
  /** An earlier call broke the engine itself (it overflowed the host's stack): nothing more runs. */
  readonly broken: boolean;
  dispose(): void;
}

/** The engine's own memory beside hers (its code's data and stack), MB. */
const ENGINE_MB = 16;
/** The engine is 32-bit WebAssembly built for at most 2 GB of memory: hers is that less its own. */
export const MAX_MEMORY_MB = 2048 - ENGINE_MB;
const engines = new Map<number, Promise<QuickJSWASMModule>>();
/**
 * The WebAssembly engine for a memory limit, compiled once per worker (a few hundred ms). Its
 * linear memory may grow to `memoryMb` + ENGINE_MB and no further: that is the limit that counts
 * everything, since this build's own allocation count (setMemoryLimit) does not see the size of
 * large blocks such as ArrayBuffers (it has no malloc_usable_size).
 */
export function loadEngine(memoryMb: number): Promise<QuickJSWASMModule> {
  let e = engines.get(memoryMb);
  if (!e) {
    const pages = (mb: number) => Math.ceil((mb * 1024 * 1024) / 65536);
    // The project's TypeScript libs have no WebAssembly types; the global is there in Node and every browser.
    const wasm = (
      globalThis as unknown as {
        WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => object };
      }
    ).WebAssembly;
    const wasmMemory = new wasm.Memory({
      initial: pages(ENGINE_MB),
      maximum: pages(Math.min(memoryMb, MAX_MEMORY_MB) + ENGINE_MB),
    });
    e = newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: wasmMemory as never }));
    engines.set(memoryMb, e);
  }
  return e;
}

/** Loads her module's text behind the wall. Throws a WallFault (kind load, runaway or memory) if it does not load. */
export async function openWalled(source: string, opts: WallOptions): Promise<WalledModule> {
  const qjs = await loadEngine(opts.memoryMb);
  // The engine's own state is not to be trusted after it breaks: the next module gets a fresh one.
  const runtime = new WallRuntime(qjs, { ...opts, onBroken: () => engines.delete(opts.memoryMb) });
  const desc = runtime.load(source) as Descriptor;
  type Riding = { value?: unknown; refused?: string; threw?: Thrown } | null;
  /** The report that rode along with the last init or step, for the state it returned (the host asks for it next). */
  let riding: { state: unknown; report: Riding } | null = null;
  const report = (state: unknown): unknown => {
    const r =
      riding && riding.state === state && state !== null && typeof state === 'object'
        ? riding.report
        : null;
    riding = null;
    if (!r) return runtime.invoke('report', [state]);
    if (r.threw) throw new WallFault(thrownInfo(r.threw, opts.memoryMb));
    if (r.refused !== undefined) throw refusal(r.refused);
    return r.value;
  };
  const stepOrInit = (
    name: 'init' | 'step',
    args: unknown[],
    ctx: { now: number; random: () => number },
  ): unknown => {
    riding = null;
    const both = runtime.invoke(name, args, ctx) as { out: unknown; report: Riding };
    riding = { state: (both.out as { state?: unknown } | null)?.state, report: both.report };
    return both.out;
  };
  return {
    exports: exportsFrom(desc, (name, args, ctx) =>
      name === 'report' ? report(args[0]) : stepOrInit(name, args, ctx!),
    ),
    url: MODULE_URL,
    get broken() {
      return runtime.broken;
    },
    dispose: () => runtime.dispose(),
  };
}

interface Descriptor {
  has: boolean;
  kind?: string;
  fns?: string[];
  name?: unknown;
  messageTypes?: unknown;
}

/** Her default export as the host sees it: what she declared, and a host function for each of hers. */
function exportsFrom(
  d: Descriptor,
  invoke: (
    name: 'init' | 'step' | 'report',
    args: unknown[],
    ctx?: { now: number; random: () => number },
  ) => unknown,
): unknown {
  if (!d.has) return {};
  if (d.kind !== 'object')
    return {
      default:
        { null: null, undefined, function: () => undefined, number: 0, string: '', boolean: false }[
          d.kind ?? 'undefined'
        ] ?? d.kind,
    };
  const def: Record<string, unknown> = { name: d.name, messageTypes: d.messageTypes };
  if (d.fns?.includes('init'))
    def.init = (config: unknown, ctx: { now: number; random: () => number }) =>
      invoke('init', [config], ctx);
  if (d.fns?.includes('step'))
    def.step = (state: unknown, event: unknown, ctx: { now: number; random: () => number }) =>
      invoke('step', [state, event], ctx);
  if (d.fns?.includes('report')) def.report = (state: unknown) => invoke('report', [state]);
  return { default: def };
}
