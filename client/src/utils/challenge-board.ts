// The challenge board's words: its CSV export, where each name says who vouches for it (verified:
// the relay checked her lab session; claimed: typed), and the lines for the instructor's replay of
// an entry in the live lab (the view's `live`): where the run is, what the live checker found,
// and the verdict, said as live, not simulated (the relay's hops and the bots' timers move times
// in a live lab). Pure.
import type { ChallengeView, LiveReplay } from '@shared/challenges/challenge-api.ts';
import { csvText } from './csv.ts';

/** The board as CSV: rank, name, whether the relay verified the name, faults, when it broke (s). */
export function challengeCsv(view: ChallengeView): string {
  return csvText(
    ['rank', 'name', 'name_is', 'faults', 'broken_at_s'],
    view.board.map((e) => [
      e.rank,
      e.name,
      e.verified ? 'verified' : 'claimed',
      e.faults,
      Math.round(e.at) / 1000,
    ]),
  );
}

export interface LiveLine {
  head: string;
  who: string;
  detail: string;
  /** The live checker's findings during the run, e.g. "Live checker: 2 safety, 1 spurious"; '' when none. */
  findings: string;
  caveat: string;
  tone: 'good' | 'bad' | 'neutral';
  running: boolean;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const precise = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

const HEADS: Record<LiveReplay['phase'], string> = {
  settling: 'Live lab: setting up',
  running: 'Live lab: running her schedule',
  reproduced: 'Live run reproduced the target',
  'not-reproduced': 'Live run did not reproduce the target',
  stopped: 'Live run stopped',
  unsettled: 'Live run did not start',
};

export function liveLine(live: LiveReplay): LiveLine {
  const running = live.phase === 'settling' || live.phase === 'running';
  const left = live.endsInMs !== undefined ? ` (about ${seconds(live.endsInMs)} left)` : '';
  const kinds = Object.entries(live.findings).filter(([, n]) => n > 0);
  const at =
    live.phase === 'reproduced' && live.at !== null
      ? ` Live at ${precise(live.at)}; the relay's simulator at ${precise(live.simulatedAt)}.`
      : '';
  return {
    head: HEADS[live.phase] + (running ? left : ''),
    who: `#${live.rank} ${live.name} (${live.verified ? 'verified' : 'claimed'})`,
    detail: running ? live.detail : sentence(live.detail) + at,
    findings: kinds.length
      ? `Live checker: ${kinds.map(([k, n]) => `${n} ${k}`).join(', ')}`
      : running
        ? 'Live checker: no finding yet'
        : '',
    caveat:
      'Judged by the live relay’s own checker on the lab’s trace; timing in a live lab differs from the simulator’s, so a schedule on a knife’s edge may not reproduce.',
    tone: live.phase === 'reproduced' ? 'good' : running ? 'neutral' : 'bad',
    running,
  };
}
