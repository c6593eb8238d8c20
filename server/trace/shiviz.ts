// A trace in ShiViz's log format: two lines per event, `<host> <vector clock JSON>` then the
// event in the trace's words (shared/protocol/trace-format.ts), which ShiViz's default parser
// regex `(?<host>\S*) (?<clock>{.*})\n(?<event>.*)` reads. Vector clocks are recomputed from the
// trace's sends and deliveries with the same clock rules as the live stamps, so labs too large for live vector clocks export as well. Only events
// at a process are written: drops, partitions and notes happen in the relay, not at a host.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { describeEvent } from '@shared/protocol/trace-format.ts';
import { ClockBook, type Stamp } from './logical-clocks.ts';

export const SHIVIZ_REGEX = '(?<host>\\S*) (?<clock>{.*})\\n(?<event>.*)';

const host = (id: ProcessId): string => `P${id}`;

export async function* shivizLines(
  events: AsyncIterable<TraceEvent> | Iterable<TraceEvent>,
): AsyncGenerator<string> {
  const book = new ClockBook(true);
  /** Stamps of messages sent and not yet delivered or dropped. */
  const inFlight = new Map<number, Stamp>();
  for await (const e of events) {
    let at: ProcessId;
    let stamp: Stamp;
    switch (e.kind) {
      case 'send':
        at = e.from;
        stamp = book.tick(at);
        inFlight.set(e.msg, stamp);
        break;
      case 'duplicate': {
        const original = inFlight.get(e.of);
        if (original) inFlight.set(e.msg, original);
        continue;
      }
      case 'deliver': {
        at = e.to;
        const sent = inFlight.get(e.msg);
        inFlight.delete(e.msg);
        stamp = sent ? book.receive(at, sent) : book.tick(at);
        break;
      }
      case 'drop':
        inFlight.delete(e.msg);
        continue;
      case 'report':
        at = e.node;
        stamp = book.tick(at);
        break;
      case 'timer':
        at = e.node;
        stamp = book.tick(at);
        break;
      case 'elect':
      case 'crash':
      case 'recover':
      case 'join':
      case 'leave':
        at = e.node;
        stamp = book.tick(at);
        break;
      default:
        continue;
    }
    yield `${host(at)} ${clockJson(stamp.vector ?? {})}\n${describeEvent(e)} [t=${e.t}]\n`;
  }
}

/** ShiViz wants host names as the clock's keys. */
function clockJson(vector: Record<string, number>): string {
  let out = '{';
  let first = true;
  for (const k in vector) {
    out += `${first ? '' : ','}"P${k}":${vector[k]}`;
    first = false;
  }
  return out + '}';
}
