// A page of a clustered relay (docs/SCALING.md) follows its lab: a `moved` answer sends the page
// to the owner, and a relay that stays unreachable for two lease times (its labs have been taken
// over by then) sends it to another relay of the cluster, which redirects to the new owner.
// On a lone relay (/api/cluster answers `clustered: false`) nothing here does anything.
import { onScopeDispose, watch, type Ref } from 'vue';
import { fallbackRelay, pageAt } from '../utils/cluster-page.ts';

interface ClusterInfo {
  clustered: boolean;
  leaseMs: number;
  relays: { id: string; url: string }[];
}

let info: Promise<ClusterInfo | null> | null = null;

function clusterInfo(): Promise<ClusterInfo | null> {
  info ??= fetch('/api/cluster', { headers: { Accept: 'application/json' } })
    .then(async (r) => {
      const info = r.ok ? ((await r.json()) as ClusterInfo) : null;
      return info?.clustered ? info : null;
    })
    .catch(() => null);
  return info;
}

export function followMoved(url: string): void {
  const target = pageAt(url, window.location);
  if (target) window.location.assign(target);
}

/** Watches a connection's state; `down` says whether it is lost. */
export function useClusterFailover<T>(state: Ref<T>, down: (s: T) => boolean): void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  void clusterInfo();
  const stop = watch(
    state,
    async (s) => {
      if (!down(s)) {
        if (timer) clearTimeout(timer);
        timer = null;
        return;
      }
      const c = await clusterInfo();
      if (!c || timer) return;
      timer = setTimeout(() => {
        const url = fallbackRelay(c.relays, window.location);
        if (url) followMoved(url);
      }, c.leaseMs * 2);
    },
    { immediate: true },
  );
  onScopeDispose(() => {
    stop();
    if (timer) clearTimeout(timer);
  });
}
