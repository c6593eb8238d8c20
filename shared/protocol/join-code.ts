// Join codes: six letters a class can read aloud and type on a phone. The alphabet leaves out
// letters that look or sound alike (I/L/1, O/Q/0, B/D/P/V/E/G, M/N, U/W...) and vowels that would
// spell words; codes are case-insensitive.
export const JOIN_CODE_ALPHABET = 'CFHJKRSTXYZ';
export const JOIN_CODE_LENGTH = 6;

/** A fresh code not in `taken`, from `random` (uniform in [0, 1)). */
export function newJoinCode(
  taken: (code: string) => boolean,
  random: () => number = Math.random,
): string {
  for (;;) {
    let code = '';
    for (let i = 0; i < JOIN_CODE_LENGTH; i++)
      code += JOIN_CODE_ALPHABET[Math.floor(random() * JOIN_CODE_ALPHABET.length)];
    if (!taken(code)) return code;
  }
}

/** What a student typed to the canonical code, or null when it cannot be one. */
export function normalizeJoinCode(input: string): string | null {
  const code = input.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== JOIN_CODE_LENGTH) return null;
  for (const ch of code) if (!JOIN_CODE_ALPHABET.includes(ch)) return null;
  return code;
}
