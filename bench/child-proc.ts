// Runs a bench script in its own Node process (through tsx) and talks to it over IPC: one
// request at a time, each answered by one reply. The relay, the baselines and the load
// generator each get a process, so their CPU and memory are measured apart.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ChildHandle {
  proc: ChildProcess;
  /** The first message the child sent (its `ready` report). */
  ready: Record<string, unknown>;
  request<T = Record<string, unknown>>(
    msg: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<T>;
  kill(): Promise<void>;
}

export async function startChild(
  script: string,
  args: string[],
  opts: { nodeArgs?: string[]; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ChildHandle> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const proc = fork(path, args, {
    execArgv: ['--import', 'tsx', ...(opts.nodeArgs ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...opts.env },
  });
  // A send racing the child's exit reports here; the pending request then fails by its own exit handler.
  proc.on('error', () => {});
  const ready = await once(proc, opts.timeoutMs ?? 20_000, script);
  let chain: Promise<unknown> = Promise.resolve();
  return {
    proc,
    ready,
    request<T>(msg: Record<string, unknown>, timeoutMs = 120_000): Promise<T> {
      const next = chain.then(() => {
        if (!proc.connected) throw new Error(`${script}: not running`);
        proc.send(msg);
        return once(proc, timeoutMs, `${script} ${String(msg.cmd)}`) as Promise<T>;
      });
      chain = next.catch(() => {});
      return next;
    },
    async kill() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function once(
  proc: ChildProcess,
  timeoutMs: number,
  what: string,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`${what}: no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (m: unknown): void => {
      const msg = m as Record<string, unknown>;
      if (msg.error) done(new Error(`${what}: ${String(msg.error)}`));
      else done(null, msg);
    };
    const onExit = (code: number | null): void => done(new Error(`${what}: exited with ${code}`));
    function done(err: Error | null, value?: Record<string, unknown>): void {
      clearTimeout(timer);
      proc.off('message', onMessage);
      proc.off('exit', onExit);
      if (err) reject(err);
      else resolve(value!);
    }
    proc.on('message', onMessage);
    proc.on('exit', onExit);
  });
}

/** In a child: answer each request from the parent with `handler`'s result (or `{error}`). */
export function serveParent(
  handler: (msg: Record<string, unknown>) => Promise<Record<string, unknown>>,
): void {
  process.on('message', (m) => {
    handler(m as Record<string, unknown>).then(
      (reply) => process.send?.(reply),
      (err: unknown) => process.send?.({ error: err instanceof Error ? err.message : String(err) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
