// The network fabric of one lab: the shared network model (shared/sim/network.ts: partitions,
// directed link rules, independent and burst loss, delay and jitter scaled by the time scale,
// duplication, FIFO or reordering) seeded by the lab's seed. The simulator runs the same model
// with the same seed stream, so a fixed seed and the same sends give the same fates in both.
import type { FabricConfig } from '@shared/protocol/lab-config.ts';
import { Network, networkRandom } from '@shared/sim/network.ts';

export { linkKey } from '@shared/sim/network.ts';

export class Fabric extends Network {
  constructor(config: FabricConfig, seed: number) {
    super(config, networkRandom(seed));
  }
}
