// The instructor panel's state and actions for one lab: the live model (observer), the REST
// calls with the token, the in-flight list while paused, and a line of feedback after each
// action. Components call these actions; nothing here draws.
import { computed, onScopeDispose, ref, shallowRef, watch, type Ref } from 'vue';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { CreateLab, FabricPatch, PlayPatch, UpdateLab } from '@shared/protocol/lab-config.ts';
import type { InFlightInfo } from '@shared/protocol/frames.ts';
import { useInstructorApi, type ApiResult } from './use-api.ts';
import { useLabObserver } from './use-lab-observer.ts';

export function useInstructor(lab: Ref<string>, token: Ref<string | null>) {
  // Stats on: the relay's checker summary once a second, for the findings panel.
  const observer = useLabObserver(lab, { stats: true });
  const api = useInstructorApi(token);
  const feedback = ref('');
  const unauthorized = ref(false);
  const inFlight = shallowRef<InFlightInfo[]>([]);

  async function run<T>(what: string, call: Promise<ApiResult<T>>): Promise<boolean> {
    const res = await call;
    if (res.ok) {
      feedback.value = what;
      unauthorized.value = false;
    } else {
      feedback.value = `${what}: failed — ${res.message}`;
      if (res.status === 401) unauthorized.value = true;
    }
    return res.ok;
  }

  const paused = computed(() => {
    void observer.version.value;
    return observer.model.value.paused;
  });

  // While paused, keep the in-flight list fresh (on every trace batch, at most twice a second).
  let last = 0;
  let pending: ReturnType<typeof setTimeout> | null = null;
  async function refreshInFlight(): Promise<void> {
    pending = null;
    last = Date.now();
    if (!paused.value) {
      inFlight.value = [];
      return;
    }
    const res = await api.inFlight(lab.value);
    if (res.ok) inFlight.value = res.data.messages;
  }
  watch([observer.version, paused], () => {
    if (pending !== null) return;
    pending = setTimeout(() => void refreshInFlight(), Math.max(0, 500 - (Date.now() - last)));
  });
  onScopeDispose(() => {
    if (pending !== null) clearTimeout(pending);
  });

  const name = () => lab.value;
  return {
    observer,
    api,
    feedback,
    unauthorized,
    inFlight,
    paused,
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
    pause: () => run('Paused: messages are held', api.pause(name())),
    resume: () => run('Resumed', api.resume(name())),
    next: () => run('Delivered the next message', api.step(name(), {})).then(refreshInFlight),
    deliver: (msg: number) =>
      run(`Delivered message ${msg}`, api.step(name(), { msg, action: 'deliver' })).then(
        refreshInFlight,
      ),
    drop: (msg: number) =>
      run(`Dropped message ${msg}`, api.step(name(), { msg, action: 'drop' })).then(
        refreshInFlight,
      ),
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
