// The relay's list of labs for the join page. The page observes the lab list (`observe-labs`)
// and fetches it again when told `labs-changed` (in a cluster, by any relay); a slow poll
// covers a dropped socket.
import { onScopeDispose, ref, shallowRef } from 'vue';
import { publicApi, type LabSummary } from './use-api.ts';
import { useRelaySocket } from './use-relay-socket.ts';

export function useLabs(everyMs = 15_000) {
  const labs = shallowRef<LabSummary[]>([]);
  const loading = ref(true);
  const error = ref<string | null>(null);
  let stopped = false;
  /** Drops an answer that a later refresh has overtaken. */
  let version = 0;

  async function refresh(): Promise<void> {
    const mine = ++version;
    const res = await publicApi.labs();
    if (stopped || mine !== version) return;
    loading.value = false;
    if (!res.ok) {
      error.value = res.message;
      return;
    }
    error.value = null;
    labs.value = res.data;
  }

  const socket = useRelaySocket({
    onFrame: (f) => {
      if (f.type === 'labs-changed') void refresh();
    },
    // On every (re)connect: subscribe, and catch up with what changed while away.
    onOpen: () => {
      socket.send({ type: 'observe-labs' });
      void refresh();
    },
  });
  void refresh();
  const timer = setInterval(() => void refresh(), everyMs);
  onScopeDispose(() => {
    stopped = true;
    clearInterval(timer);
  });
  return { labs, loading, error, refresh };
}
