// Where a page of a clustered relay goes when its lab lives elsewhere (client/src/utils/cluster-page.ts).
import { describe, expect, it } from 'vitest';
import { fallbackRelay, pageAt } from '../../client/src/utils/cluster-page.ts';

const here = {
  origin: 'http://10.0.0.1:3000',
  pathname: '/lab/cs101/process/3',
  search: '?mode=hand',
  hash: '#log',
};

describe('cluster page moves', () => {
  it('keeps the path, the query and the fragment on the owner', () => {
    expect(pageAt('http://10.0.0.2:3001', here)).toBe(
      'http://10.0.0.2:3001/lab/cs101/process/3?mode=hand#log',
    );
  });

  it('does not move to the page it is on (no reload loop), nor to a bad or non-http address', () => {
    expect(pageAt('http://10.0.0.1:3000/', here)).toBeNull();
    expect(pageAt('not a url', here)).toBeNull();
    expect(pageAt('javascript:alert(1)', here)).toBeNull();
  });

  it('falls back to the first live relay that is not this one', () => {
    expect(
      fallbackRelay([{ url: 'http://10.0.0.1:3000' }, { url: 'http://10.0.0.3:3002' }], here),
    ).toBe('http://10.0.0.3:3002');
    expect(fallbackRelay([{ url: 'http://10.0.0.1:3000' }], here)).toBeNull();
  });
});
