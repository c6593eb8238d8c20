// The hand-mode composer (client/src/utils/composed-offer.ts): what she types is sent only when
// the algorithm's schema accepts it (the one gate for messages, CONTRIBUTING.md "Add an
// algorithm", step 2); otherwise she is told why in one sentence.
import { describe, expect, it } from 'vitest';
import { composedOffer } from '../../client/src/utils/composed-offer.ts';

describe('composedOffer', () => {
  it('a well-formed Bully OK becomes an offer to send it to the chosen process', () => {
    expect(composedOffer('bully', 'OK', 1, '{"election": 99}')).toEqual({
      ok: true,
      offer: {
        key: 'composed',
        label: 'sent OK to 1 (composed)',
        steps: [{ kind: 'send', to: 1, message: { type: 'OK', election: 99 } }],
      },
    });
  });

  it('empty fields are an empty object: COORDINATOR needs none', () => {
    const r = composedOffer('bully', 'COORDINATOR', 3, '   ');
    expect(r.ok && r.offer.steps).toEqual([
      { kind: 'send', to: 3, message: { type: 'COORDINATOR' } },
    ]);
  });

  it('text that is not JSON, or JSON that is not an object, is refused with the reason', () => {
    expect(composedOffer('bully', 'OK', 1, '{election: 1}')).toEqual({
      ok: false,
      notice: 'The fields are not JSON, e.g. {"election": 1}.',
    });
    expect(composedOffer('bully', 'OK', 1, '[1]')).toEqual({
      ok: false,
      notice: 'The fields must be a JSON object.',
    });
    expect(composedOffer('bully', 'OK', 1, 'null')).toMatchObject({ ok: false });
  });

  it("fields the algorithm's schema refuses are not sent", () => {
    expect(composedOffer('bully', 'ELECTION', 1, '{"election": "one"}')).toEqual({
      ok: false,
      notice: 'That is not a ELECTION message of bully: check its fields.',
    });
  });
});
