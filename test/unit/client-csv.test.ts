// The app's one CSV writer (client/src/utils/csv.ts), used by the roster's and the class board's
// exports: RFC 4180 quoting, and every text cell a spreadsheet would run or misread defused.
import { describe, expect, it } from 'vitest';
import { csvField, csvText } from '../../client/src/utils/csv.ts';
import { boardCsv, boardRows } from '../../client/src/utils/class-board.ts';
import { rosterCsv, rosterRows } from '../../client/src/utils/roster.ts';
import type { ProcessInfo } from '@shared/protocol/frames.ts';

describe('csv', () => {
  it('defuses = + - @ tab and carriage return at the start of text alike, and quotes what needs it', () => {
    for (const lead of ['=', '+', '-', '@', '\t', '\r'])
      expect(csvField(`${lead}cmd`).replace(/^"/, '').startsWith(`'${lead}`)).toBe(true);
    expect(csvField('Ada')).toBe('Ada');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('\rx')).toBe(`"'\rx"`);
    // The app's own numbers are written as they are.
    expect(csvField(-3)).toBe('-3');
    expect(csvText(['a', 'b'], [[1, '@x']])).toBe("a,b\r\n1,'@x\r\n");
  });

  it('is the same function behind the roster and the board: a leading tab or carriage return is defused in both', () => {
    const p: ProcessInfo = {
      id: 1,
      name: '\tHIDDEN',
      status: 'up',
      kind: 'human',
      transport: 'ws',
      report: null,
      group: null,
      since: null,
    };
    const q: ProcessInfo = { ...p, id: 2, name: '\r=1+1' };
    const roster = rosterCsv(rosterRows([p, q])).split('\r\n');
    const board = boardCsv(boardRows('l', [p, q]));
    expect(roster[1]).toBe("1,'\tHIDDEN,human,yes,up,");
    expect(roster[2]).toContain(`"'\r=1+1"`);
    expect(board.split('\r\n')[1]!.startsWith("1,'\tHIDDEN,")).toBe(true);
    expect(board).toContain(`"'\r=1+1"`);
  });
});
