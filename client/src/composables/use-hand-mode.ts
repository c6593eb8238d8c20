// Hand mode (docs/RUN_A_CLASS.md): the student is the process. `enter` makes a HandRunner
// (shared/coach/hand-runner.ts) this tab's process, so deliveries, timeouts and `elect` queue
// for her and only her clicks send; `leave` restarts the lab's algorithm from scratch. The
// runner's view (queue, offers, the coach) reaches the page at most every 100 ms.
import { onScopeDispose, ref, shallowRef, type Ref } from 'vue';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import type { Offer } from '@shared/coach/hand-kit.ts';
import { HandRunner, type HandView, type QueuedItem } from '@shared/coach/hand-runner.ts';
import type { LabProcess } from '@shared/lab-client/lab-client.ts';
import type { ProcessConfig } from '@shared/protocol/frames.ts';
import { assignOffer } from '@shared/coach/hand-work.ts';
import { jobOf } from '@shared/work/work-job.ts';
import { withWorkload } from '@shared/work/with-work.ts';
import { composedOffer } from '../utils/composed-offer.ts';

const PUBLISH_MS = 100;

export function useHandMode(opts: { process: LabProcess; config: Ref<ProcessConfig | null> }) {
  const active = ref(false);
  const autoBeat = ref(true);
  let runner: HandRunner | null = null;
  const { view, viewAt, changed } = usePublishedView(() => runner);

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

  function setAutoBeat(on: boolean): void {
    autoBeat.value = on;
    runner?.setAutoBeat(on);
  }

  return {
    active,
    view,
    viewAt,
    autoBeat,
    enter,
    leave,
    setAutoBeat,
    ...handActions(() => runner, view, opts.config),
  };
}

/** The runner's view, drawn at most every PUBLISH_MS however fast it changes. */
function usePublishedView(runner: () => HandRunner | null) {
  const view = shallowRef<HandView | null>(null);
  /** performance.now() when the view was drawn: her clock runs on from `view.now` (a task's time left). */
  const viewAt = ref(0);
  let publish: ReturnType<typeof setTimeout> | null = null;
  const changed = () => {
    publish ??= setTimeout(() => {
      publish = null;
      const r = runner();
      view.value = r?.isRunning ? r.view() : null;
      viewAt.value = performance.now();
    }, PUBLISH_MS);
  };
  onScopeDispose(() => {
    if (publish !== null) clearTimeout(publish);
  });
  return { view, viewAt, changed };
}

/** Her clicks: an offer, a composed message, an assignment, a belief; `notice` says why one was refused. */
function handActions(
  runner: () => HandRunner | null,
  view: Ref<HandView | null>,
  config: Ref<ProcessConfig | null>,
) {
  const notice = ref<string | null>(null);

  function act(offer: Offer, item?: QueuedItem): void {
    notice.value = null;
    runner()?.act(offer, item);
  }

  return {
    notice,
    act,
    setSuccessor: (id: ProcessId) => runner()?.setSuccessor(id),
    /** A message she wrote: type, recipient and fields (JSON), checked against the algorithm's schema first. */
    compose(type: string, to: ProcessId, fields: string): void {
      const algorithm = config.value?.algorithm;
      if (!algorithm) return;
      const r = composedOffer(algorithm, type, to, fields);
      if (r.ok) act(r.offer);
      else notice.value = r.notice;
    },
    /** As the work schedule's coordinator: hand `task` to `worker` (she picks both; the coach judges). */
    assign(task: number, worker: ProcessId): void {
      const w = view.value?.work?.state;
      const offer = w ? assignOffer(w, task, worker) : null;
      if (offer) act(offer);
    },
    believe(coordinator: ProcessId): void {
      act({
        key: 'believe',
        label: `believes ${coordinator} is coordinator`,
        steps: [{ kind: 'believe', coordinator }],
      });
    },
  };
}

export type HandMode = ReturnType<typeof useHandMode>;
