// The shipped challenges: every challenges/*.json checked against the challenge schema when the
// relay starts (shared/challenges/challenge-schema.ts); a file that fails is left out and named.
import { parseChallenge, type Challenge } from '@shared/challenges/challenge-schema.ts';
import { loadJsonFolder } from './json-folder.ts';

export interface ChallengeCatalog {
  challenges: Challenge[];
  refused: { file: string; errors: string[] }[];
}

export function loadChallenges(dir: string): ChallengeCatalog {
  const { items, refused } = loadJsonFolder(
    dir,
    (raw) => {
      const p = parseChallenge(raw);
      return p.ok ? { ok: true, value: p.challenge } : p;
    },
    'challenge',
  );
  return { challenges: items, refused };
}
