// The instructor panel's state and actions for one lab: the live model (observer), the REST
// calls with the token, the in-flight list while paused, and a line of feedback after each
// action. Components call these actions; nothing here draws.
import { computed, onScopeDispose, ref, shallowRef, watch, type Ref } from 'vue';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { CreateLab, FabricPatch, PlayPatch, UpdateLab } from '@shared/protocol/lab-config.ts';
import type { InFlightInfo } from '@shared/protocol/frames.ts';
import { useInstructorApi, type ApiResult, type InstructorApi } from './use-api.ts';
import { useLabObserver, type LabObserver } from './use-lab-observer.ts';

export function useInstructor(lab: Ref<string>, token: Ref<string | null>) {
  // Stats on: the relay's checker summary once a second, for the findings panel.
  const observer = useLabObserver(lab, { stats: true });
  const api = useInstructorApi(token);
  const { feedback, unauthorized, run } = useFeedback();
  const paused = computed(() => {
    void observer.version.value;
    return observer.model.value.paused;
  });
  const held = useHeldList(lab, api, observer.version, paused);
  const c: Ctx = { name: () => lab.value, api, run, feedback, observer, held: held.refresh };
  return {
    observer,
    api,
    feedback,
    unauthorized,
    inFlight: held.inFlight,
    paused,
    ...labActions(c),
    ...processActions(c),
    ...messageActions(c),
  };
}

type Run = <T>(what: string, call: Promise<ApiResult<T>>) => Promise<boolean>;

interface Ctx {
  name: () => string;
  api: InstructorApi;
  run: Run;
  feedback: Ref<string>;
  observer: LabObserver;
  /** Fetch the held list again now (after a step). */
  held: () => Promise<void>;
}

/** A line saying what her last action did, or why it failed; a 401 marks the token refused. */
function useFeedback() {
  const feedback = ref('');
  const unauthorized = ref(false);
  const run: Run = async (what, call) => {
    const res = await call;
    if (res.ok) {
      feedback.value = what;
      unauthorized.value = false;
    } else {
      feedback.value = `${what}: failed — ${res.message}`;
      if (res.status === 401) unauthorized.value = true;
    }
    return res.ok;
  };
  return { feedback, unauthorized, run };
}

/** While paused, keep the in-flight list fresh (on every trace batch, at most twice a second). */
function useHeldList(
  lab: Ref<string>,
  api: InstructorApi,
  version: Ref<number>,
  paused: Ref<boolean>,
) {
  const inFlight = shallowRef<InFlightInfo[]>([]);
  let last = 0;
  let pending: ReturnType<typeof setTimeout> | null = null;
  async function refresh(): Promise<void> {
    pending = null;
    last = Date.now();
    if (!paused.value) {
      inFlight.value = [];
      return;
    }
    const res = await api.inFlight(lab.value);
    if (res.ok) inFlight.value = res.data.messages;
  }
  watch([version, paused], () => {
    if (pending !== null) return;
    pending = setTimeout(() => void refresh(), Math.max(0, 500 - (Date.now() - last)));
  });
  onScopeDispose(() => {
    if (pending !== null) clearTimeout(pending);
  });
  return { inFlight, refresh };
}

/** The lab's settings, its bots and its trace. */
function labActions({ name, api, run, feedback, observer }: Ctx) {
  return {
    createLab: (body: Omit<CreateLab, 'name'>) =>
      run(`Created lab ${name()}`, api.createLab({ ...body, name: name() })).then(
        (ok) => ok && observer.refresh(),
      ),
    updateLab: (body: UpdateLab) =>
      run('Applied the algorithm settings; every process restarts', api.updateLab(name(), body)),
    setWorkload: (body: Pick<UpdateLab, 'workload'>) =>
      run(
        body.workload
          ? `Set the workload: ${body.workload.tasks} tasks, ${body.workload.sharing} sharing, fencing ${body.workload.fencing ? 'on' : 'off'}; every process restarts`
          : 'Removed the workload; every process restarts',
        api.updateLab(name(), body),
      ),
    setFabric: (patch: FabricPatch) =>
      run('Applied the network settings', api.setFabric(name(), patch)),
    setPlay: (patch: PlayPatch) =>
      run('Applied the play settings; the tabs switch now', api.setPlay(name(), patch)),
    partition: (groups: ProcessId[][]) =>
      run(`Partitioned into ${groups.length} groups`, api.partition(name(), groups)),
    heal: () => run('Healed the partition', api.heal(name())),
    async addBots(count: number) {
      const res = await api.addBots(name(), count);
      if (!res.ok) return run('Adding bots', Promise.resolve(res));
      const { started, refused } = res.data;
      feedback.value = `Added ${started.length} bots${started.length ? ` (ids ${started[0]}–${started[started.length - 1]})` : ''}${refused.length ? `; ${refused.length} refused: ${refused[0]!.message}` : ''}`;
      return true;
    },
    removeBots: () => run('Removed the server bots', api.removeBots(name())),
    reset: () => run('Reset the lab', api.reset(name())),
    restartJob: () => run('Restarted the job from a fresh task list', api.restartJob(name())),
    async download(format: 'jsonl' | 'shiviz') {
      const res = await api.download(name(), format);
      if (!res.ok) {
        feedback.value = `Download failed — ${res.message}`;
        return;
      }
      const a = document.createElement('a');
      a.href = URL.createObjectURL(res.data);
      a.download = `${name()}-trace.${format === 'jsonl' ? 'jsonl' : 'shiviz.txt'}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 5000);
      feedback.value = `Downloaded the trace (${format})`;
    },
  };
}

/** One process at a time: crash, recover, pause, resume, elect. */
function processActions({ name, api, run, feedback, observer }: Ctx) {
  return {
    crash: (id: ProcessId) => run(`Crashed ${id}`, api.crash(name(), id)),
    recover: (id: ProcessId) => run(`Recovered ${id}`, api.recover(name(), id)),
    pauseProcess: (id: ProcessId) =>
      run(`Paused ${id}: it gets nothing and its timers stand still`, api.pauseProcess(name(), id)),
    resumeProcess: (id: ProcessId) => run(`Resumed ${id}`, api.resumeProcess(name(), id)),
    toggle(id: ProcessId) {
      const p = observer.model.value.processes.get(id);
      if (p?.status === 'up') return run(`Crashed ${id}`, api.crash(name(), id));
      if (p?.status === 'crashed') return run(`Recovered ${id}`, api.recover(name(), id));
      feedback.value = `Nobody holds id ${id}`;
      return Promise.resolve(false);
    },
    elect: (id: ProcessId) => run(`${id} starts an election`, api.elect(name(), id)),
  };
}

/** The lab's messages: pause and resume, then deliver or drop the held ones one by one. */
function messageActions({ name, api, run, held }: Ctx) {
  return {
    pause: () => run('Paused: messages are held', api.pause(name())),
    resume: () => run('Resumed', api.resume(name())),
    next: () => run('Delivered the next message', api.step(name(), {})).then(held),
    deliver: (msg: number) =>
      run(`Delivered message ${msg}`, api.step(name(), { msg, action: 'deliver' })).then(held),
    drop: (msg: number) =>
      run(`Dropped message ${msg}`, api.step(name(), { msg, action: 'drop' })).then(held),
  };
}
