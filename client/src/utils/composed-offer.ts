// The hand-mode composer's message (docs/RUN_A_CLASS.md, hand mode): a type, a recipient and
// fields typed as JSON become an offer to send it, once the algorithm's own schema accepts it;
// otherwise the sentence the page shows her. Pure.
import type { AlgorithmName, ProcessId } from '@shared/algorithms/algorithm.ts';
import { composed, type Offer } from '@shared/coach/hand-kit.ts';

export function composedOffer(
  algorithm: AlgorithmName,
  type: string,
  to: ProcessId,
  fields: string,
): { ok: true; offer: Offer } | { ok: false; notice: string } {
  let extra: unknown;
  try {
    extra = fields.trim() ? JSON.parse(fields) : {};
  } catch {
    return { ok: false, notice: 'The fields are not JSON, e.g. {"election": 1}.' };
  }
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra))
    return { ok: false, notice: 'The fields must be a JSON object.' };
  const message = composed(algorithm, { ...extra, type });
  if (!message)
    return {
      ok: false,
      notice: `That is not a ${type} message of ${algorithm}: check its fields.`,
    };
  const label = `sent ${type} to ${to} (composed)`;
  return { ok: true, offer: { key: 'composed', label, steps: [{ kind: 'send', to, message }] } };
}
