import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchParamsOf } from '../../../src/http/query.ts';

describe('searchParamsOf', () => {
  it('reads the query without the fragment, and an empty one without a query', () => {
    expect([...searchParamsOf('http://h/x?a=1&a=2&b=%C3%A9#c=3')]).toEqual([
      ['a', '1'],
      ['a', '2'],
      ['b', 'é'],
    ]);
    expect([...searchParamsOf('http://h/x')]).toEqual([]);
    expect([...searchParamsOf('http://h/x#?a=1')]).toEqual([]);
  });

  it('agrees with new URL(url).searchParams on any request URL', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const href = new URL(url).href;
        expect([...searchParamsOf(href)]).toEqual([...new URL(href).searchParams]);
      }),
      { numRuns: 1000 },
    );
  });
});
