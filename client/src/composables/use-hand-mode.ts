// Hand mode (docs/RUN_A_CLASS.md): the student is the process. `enter` makes a HandRunner
// (shared/coach/hand-runner.ts) this tab's process, so deliveries, timeouts and `elect` queue
// for her and only her clicks send; `leave` restarts the lab's algorithm from scratch. The
// runner's view (queue, offers, the coach) reaches the page at most every 100 ms.
import { onScopeDispose, ref, shallowRef, type Ref } from 'vue';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { composed, type Offer } from '@shared/coach/hand-kit.ts';
import { HandRunner, type HandView, type QueuedItem } from '@shared/coach/hand-runner.ts';
import type { LabProcess } from '@shared/lab-client/lab-client.ts';
import type { ProcessConfig } from '@shared/protocol/frames.ts';
import { assignOffer } from '@shared/coach/hand-work.ts';
import { jobOf } from '@shared/work/work-job.ts';
import { withWorkload } from '@shared/work/with-work.ts';

const PUBLISH_MS = 100;

export function useHandMode(opts: { process: LabProcess; config: Ref<ProcessConfig | null> }) {
  const active = ref(false);
  const view = shallowRef<HandView | null>(null);
  /** performance.now() when the view was drawn: her clock runs on from `view.now` (a task's time left). */
  const viewAt = ref(0);
  const autoBeat = ref(true);
  const notice = ref<string | null>(null);
  let runner: HandRunner | null = null;
  let publish: ReturnType<typeof setTimeout> | null = null;

  const changed = () => {
    publish ??= setTimeout(() => {
      publish = null;
      view.value = runner?.isRunning ? runner.view() : null;
      viewAt.value = performance.now();
    }, PUBLISH_MS);
  };

  function enter(): void {
    if (active.value) return;
    active.value = true;
    opts.process.setMode('hand', (config, io, listener) => {
      runner = new HandRunner({
        // The coach's shadow runs the lab's algorithm with its workload (003's work schedule), if any.
        algorithm: withWorkload(getAlgorithm(config.algorithm), config.workload),
        ...(config.workload ? { work: jobOf(config.workload) } : {}),
        io,
        listener,
        seed: config.seed,
        autoBeat: autoBeat.value,
        onHand: (action, deviations) => opts.process.sendHand(action, deviations),
        onChange: changed,
      });
      return runner;
    });
  }

  /** Back to the lab's algorithm, from its start (003: a process holds an election on start). */
  function leave(): void {
    if (!active.value) return;
    active.value = false;
    runner = null;
    view.value = null;
    opts.process.setMode('auto');
  }

  function act(offer: Offer, item?: QueuedItem): void {
    notice.value = null;
    runner?.act(offer, item);
  }

  function setAutoBeat(on: boolean): void {
    autoBeat.value = on;
    runner?.setAutoBeat(on);
  }

  function setSuccessor(id: ProcessId): void {
    runner?.setSuccessor(id);
  }

  /** A message she wrote: type, recipient and fields (JSON), checked against the algorithm's schema first. */
  function compose(type: string, to: ProcessId, fields: string): void {
    const algorithm = opts.config.value?.algorithm;
    if (!algorithm) return;
    let extra: unknown;
    try {
      extra = fields.trim() ? JSON.parse(fields) : {};
    } catch {
      notice.value = 'The fields are not JSON, e.g. {"election": 1}.';
      return;
    }
    if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
      notice.value = 'The fields must be a JSON object.';
      return;
    }
    const message = composed(algorithm, { ...extra, type });
    if (!message) {
      notice.value = `That is not a ${type} message of ${algorithm}: check its fields.`;
      return;
    }
    act({
      key: 'composed',
      label: `sent ${type} to ${to} (composed)`,
      steps: [{ kind: 'send', to, message }],
    });
  }

  /** As the work schedule's coordinator: hand `task` to `worker` (she picks both; the coach judges). */
  function assign(task: number, worker: ProcessId): void {
    const w = view.value?.work?.state;
    const offer = w ? assignOffer(w, task, worker) : null;
    if (offer) act(offer);
  }

  function believe(coordinator: ProcessId): void {
    act({
      key: 'believe',
      label: `believes ${coordinator} is coordinator`,
      steps: [{ kind: 'believe', coordinator }],
    });
  }

  onScopeDispose(() => {
    if (publish !== null) clearTimeout(publish);
  });

  return {
    active,
    view,
    viewAt,
    autoBeat,
    notice,
    enter,
    leave,
    act,
    setAutoBeat,
    setSuccessor,
    compose,
    believe,
    assign,
  };
}

export type HandMode = ReturnType<typeof useHandMode>;
