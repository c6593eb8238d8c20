// How an algorithm is put together for its hosts: its messages checked against its schemas
// first (messages.ts), then its step, then a report whenever the report changed (withReports).
// A message that does not fit, or that names ids this process does not know, is ignored and
// counted in the state (`ignored`, shown in the report's detail), so `step` is total on any JSON
// a peer can send and no such message can corrupt the state.
import {
  withReports,
  type Algorithm,
  type AlgorithmConfig,
  type AlgorithmEvent,
  type AlgorithmName,
  type Message,
  type ProcessId,
  type Report,
  type Step,
  type StepContext,
} from './algorithm.ts';
import { isProcessId, messageParser, type MessageSchemas } from './messages.ts';

/** Every algorithm's state counts the messages it ignored (absent: none). */
export interface Counted {
  ignored?: number;
}

interface AlgorithmSpec<S extends Counted, M extends Message> {
  name: AlgorithmName;
  /** One schema per message type, in the order the dashboard lists the types. */
  messages: MessageSchemas;
  init(config: AlgorithmConfig, ctx: StepContext): Step<S, M>;
  /** Sees only messages that fit their schema and passed `accepts`. */
  step(state: S, event: AlgorithmEvent<M>, ctx: StepContext): Step<S, M>;
  report(state: S): Report;
  /** Semantic checks a schema cannot make: ids in the message must be ids this process knows. */
  accepts?(state: S, message: M, from: ProcessId): boolean;
}

export function defineAlgorithm<S extends Counted, M extends Message>(
  spec: AlgorithmSpec<S, M>,
): Algorithm<S, M> {
  const parse = messageParser(spec.messages);
  const ignore = (state: S): Step<S, M> => ({
    state: { ...state, ignored: (state.ignored ?? 0) + 1 },
    effects: [],
  });
  return withReports<S, M>({
    name: spec.name,
    messageTypes: Object.keys(spec.messages),
    init: spec.init,
    step(state, event, ctx) {
      switch (event?.kind) {
        case 'message': {
          const m = isProcessId(event.from) ? (parse(event.message) as M | null) : null;
          if (!m || (spec.accepts && !spec.accepts(state, m, event.from))) return ignore(state);
          return spec.step(state, { kind: 'message', from: event.from, message: m }, ctx);
        }
        case 'timer':
          return typeof event.name === 'string'
            ? spec.step(state, event, ctx)
            : { state, effects: [] };
        case 'elect':
          return spec.step(state, event, ctx);
        default:
          return { state, effects: [] };
      }
    },
    report(state) {
      const r = spec.report(state);
      return state.ignored ? { ...r, detail: { ...r.detail, ignored: state.ignored } } : r;
    },
  });
}
