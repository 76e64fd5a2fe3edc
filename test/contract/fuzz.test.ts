/**
 * Fuzz (fast-check) of every contract POST route with hostile sizes: a huge array at any place of
 * a realistic request, a very long string in any string member (free text and keys alike), deep
 * nesting and prototype-named keys. The answer is always a 200 or a 4xx in the envelope, never a
 * 5xx, and it stays small next to the request.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { handlerWith, post } from './support.ts';
import { crmManifest } from '../unit/contract/validate-fixtures.ts';
import { Invoice } from '../unit/governed/core-fixtures.ts';

const handler = handlerWith();

type Path = (string | number)[];

/** A realistic entity definition document (the governed tests' invoice, base fields added). */
const entityDocument = JSON.parse(JSON.stringify(Invoice)) as Record<string, unknown>;

/** A realistic request per route; the fuzz changes one place of it. */
const requests: Record<string, () => unknown> = {
  '/api/validate/manifest': () => ({ manifest: crmManifest() }),
  '/api/validate/normalize': () => ({ manifest: crmManifest() }),
  '/api/validate/entity': () => ({ entity: crmManifest().spec.entities[0] }),
  '/api/validate/page': () => ({ page: crmManifest().spec.pages[1] }),
  '/api/validate/entity-document': () => structuredClone(entityDocument),
  '/api/guidance/recommend': () => ({ goal: 'a CRM for our sales team' }),
  '/api/guidance/suggest-pages': () => ({ entities: ['customer', 'stock_level'] }),
  '/api/guidance/suggest-relations': () => ({
    entities: [
      { key: 'invoice', fields: ['customer_id', 'total'] },
      { key: 'customer', fields: ['name'] },
    ],
  }),
  '/api/guidance/explain-errors': () => ({
    errors: [
      { field: 'kind', message: 'Required' },
      { field: 'spec.pages.0.path', message: 'path must start with "/"' },
    ],
  }),
};

/** Every place of a JSON value (the root included as `[]`), with the value found there. */
function places(value: unknown, prefix: Path = []): Array<[Path, unknown]> {
  const here: Array<[Path, unknown]> = [[prefix, value]];
  if (typeof value !== 'object' || value === null) return here;
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
  return here.concat(entries.flatMap(([key, child]) => places(child, [...prefix, key])));
}

function replaceAt(doc: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = value;
  return copy;
}

const routes = Object.keys(requests);
const arrayPlaces = routes.flatMap((route) =>
  places(requests[route]!())
    .filter(([path]) => path.length > 0)
    .map(([path]) => ({ route, path })),
);
const stringPlaces = routes.flatMap((route) =>
  places(requests[route]!())
    .filter(([, value]) => typeof value === 'string')
    .map(([path]) => ({ route, path })),
);

/** Small items a huge array is made of (each a different kind of wrong or right). */
const item = fc.constantFrom<unknown>({}, '', 'a', 0, null, [], { key: 'x' }, { field: 'f', message: 'm' }, 'customer');

/** Sends the request, checks status and envelope, and returns the answer's length. */
async function send(route: string, body: unknown): Promise<{ status: number; length: number; sent: number }> {
  const text = JSON.stringify(body);
  const response = await post(handler, route, text);
  const answer = await response.text();
  expect(response.status, answer.slice(0, 300)).toBeLessThan(500);
  expect([200, 400, 413]).toContain(response.status);
  const parsed = JSON.parse(answer) as Record<string, unknown>;
  if (response.status !== 200) {
    expect(typeof parsed.error).toBe('string');
    expect(typeof parsed.message).toBe('string');
    expect(JSON.stringify(parsed)).not.toMatch(/\bat .*\.ts:\d+/);
  }
  return { status: response.status, length: answer.length, sent: text.length };
}

describe('contract routes under hostile sizes never answer 5xx', () => {
  it('a huge array at any place of any request: bounded answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...arrayPlaces), fc.integer({ min: 1001, max: 150_000 }), item, async ({ route, path }, length, element) => {
        const body = replaceAt(
          requests[route]!(),
          path,
          Array.from({ length }, () => element),
        );
        const { length: answered, sent } = await send(route, body);
        // Issue lists are capped: the answer never grows with the number of items.
        expect(answered).toBeLessThan(Math.min(sent, 40_000) + 40_000);
      }),
      { numRuns: 60 },
    );
  });

  it('a very long string in any string member: bounded answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...stringPlaces),
        fc.integer({ min: 2_000, max: 400_000 }),
        fc.constantFrom('a', ' ', '.', '_', 'A/', '\n', 'é'),
        async ({ route, path }, length, unit) => {
          const body = replaceAt(requests[route]!(), path, unit.repeat(Math.ceil(length / unit.length)));
          const { length: answered, sent } = await send(route, body);
          // At most a couple of echoes of the offending value (enum messages quote what they got).
          expect(answered).toBeLessThan(3 * sent + 40_000);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('deep nesting at any place: 400 past the limit, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...arrayPlaces), fc.integer({ min: 1, max: 6000 }), fc.boolean(), async ({ route, path }, levels, arrays) => {
        const text = JSON.stringify(replaceAt(requests[route]!(), path, '__DEEP__')).replace(
          '"__DEEP__"',
          arrays ? `${'['.repeat(levels)}1${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`,
        );
        const response = await post(handler, route, text);
        const answer = await response.text();
        expect(response.status, answer.slice(0, 300)).toBeLessThan(500);
        if (levels > 64) expect(response.status).toBe(400);
      }),
      { numRuns: 80 },
    );
  });

  it('prototype-named keys at any place: never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...arrayPlaces),
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
        async ({ route, path }, key) => {
          const text = JSON.stringify(replaceAt(requests[route]!(), path, '__KEYED__')).replace('"__KEYED__"', `{"${key}":{"polluted":true},"key":"x"}`);
          const response = await post(handler, route, text);
          expect(response.status, (await response.text()).slice(0, 300)).toBeLessThan(500);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { numRuns: 80 },
    );
  });
});
