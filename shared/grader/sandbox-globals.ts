// What a student module finds missing in its sandbox (a Web Worker behind her tab, a worker
// thread behind the grader): the network, other workers, storage, clocks and Math.random. Each
// is replaced by a function that throws a sentence saying why and what to use instead. The worker
// calls this after taking what it needs itself and before it loads her code.
//
// This keeps honest mistakes out and makes them explain themselves; it is not a wall against code
// written to escape (a prototype chain leads back to most of it). The walls are elsewhere: the
// worker has no DOM; in the relay's build the sandbox worker's script is served with a Content
// Security Policy that allows it no connection at all; its time per call is bounded by a
// watchdog that terminates it; and the tab checks everything the worker hands back before any of
// it reaches the relay, whose validation and rate limits apply to her connection as to anyone's.

const WHY: Record<string, string> = {
  fetch: 'a module may not use the network',
  XMLHttpRequest: 'a module may not use the network',
  WebSocket: 'a module may not use the network: send messages with { kind: "send" } effects',
  EventSource: 'a module may not use the network',
  WebTransport: 'a module may not use the network',
  RTCPeerConnection: 'a module may not use the network',
  importScripts: 'a module may not load code',
  Worker: 'a module may not start workers',
  SharedWorker: 'a module may not start workers',
  BroadcastChannel: 'a module may not talk to other tabs or workers',
  MessageChannel: 'a module may not talk to other tabs or workers',
  indexedDB: 'a module may not store anything: keep what you need in the state',
  caches: 'a module may not store anything: keep what you need in the state',
  setTimeout: 'timers are effects: return { kind: "set-timer", name, after }',
  setInterval: 'timers are effects: return { kind: "set-timer", name, after }',
  setImmediate: 'timers are effects: return { kind: "set-timer", name, after }',
  queueMicrotask: 'a step runs to its end: there is no later within it',
  requestAnimationFrame: 'timers are effects: return { kind: "set-timer", name, after }',
  postMessage: 'a module speaks only through the effects it returns',
  close: 'a module may not stop its sandbox',
  process: 'a module has no process object: everything it may know is in config and ctx',
  require: 'a module may not import anything',
};

function refuse(name: string, why: string): () => never {
  const f = () => {
    throw new Error(`${name} is not available here: ${why}`);
  };
  return f;
}

/**
 * Replaces the network, workers, storage, timers and clocks on `scope` (a worker's global
 * object). Returns nothing: the caller keeps its own references (postMessage, performance.now...)
 * from before.
 */
export function lockDown(scope: Record<string, unknown>): void {
  for (const [name, why] of Object.entries(WHY)) {
    if (!(name in scope)) continue;
    try {
      Object.defineProperty(scope, name, { value: refuse(name, why), configurable: false, writable: false });
    } catch {
      // A property the platform will not let go of: left as it is.
    }
  }
  const clock = 'a module has no clock: use ctx.now (ms since the process started) and timers';
  const RealDate = Date;
  const FakeDate = function (this: unknown, ...args: unknown[]) {
    if (args.length === 0) throw new Error(`Date is not available here: ${clock}`);
    return new (RealDate as unknown as new (...a: unknown[]) => Date)(...args);
  } as unknown as DateConstructor;
  Object.defineProperty(FakeDate, 'now', { value: refuse('Date.now', clock) });
  Object.defineProperty(FakeDate, 'parse', { value: RealDate.parse });
  Object.defineProperty(FakeDate, 'UTC', { value: RealDate.UTC });
  Object.defineProperty(scope, 'Date', { value: FakeDate, configurable: false, writable: false });
  Object.defineProperty(scope, 'performance', { value: Object.freeze({}), configurable: false, writable: false });
  Object.defineProperty(Math, 'random', { value: refuse('Math.random', 'use ctx.random (seeded by the host, so runs repeat)'), configurable: false, writable: false });
}
