/**
 * Amplification and deep input on the public contract routes: a small hostile body gets a small
 * answer in bounded time (at most 100 issues plus a count of the rest, capped request arrays, a
 * 400 in the envelope for nesting past the parser's limit), never a 5xx.
 */
import { describe, expect, it } from 'vitest';
import { envelope, handlerWith, json, post } from './support.ts';
import { crmManifest } from '../unit/contract/validate-fixtures.ts';
import { jsonNestingDepth } from '../../src/http/json.ts';
import {
  MAX_CONTRACT_DOCUMENT_VALUES,
  MAX_CONTRACT_LIST_ITEMS,
  MAX_ERROR_TEXT_LENGTH,
  MAX_EXPLAINED_ERRORS,
  MAX_GUIDANCE_ENTITIES,
  MAX_GUIDANCE_FIELDS,
  MAX_GUIDANCE_KEY_LENGTH,
  MAX_REPORTED_ISSUES,
} from '../../src/limits.ts';

const handler = handlerWith();

/** Generous bound for "finishes in linear time" on a shared machine; the old code took seconds. */
const BOUND_MS = 3000;

/** POSTs a raw JSON text and returns status, the answer text and the elapsed time. */
async function timedPost(path: string, text: string) {
  const started = performance.now();
  const response = await post(handler, path, text);
  const answer = await response.text();
  return { status: response.status, answer, body: JSON.parse(answer), ms: performance.now() - started };
}

const emptyObjects = (count: number) => `[${Array.from({ length: count }, () => '{}').join(',')}]`;

function manifestWithPages(pagesJson: string): string {
  const doc = crmManifest() as Record<string, any>;
  doc.spec.pages = '__PAGES__';
  return JSON.stringify({ manifest: doc }).replace('"__PAGES__"', pagesJson);
}

describe('validation results list at most 100 issues and count the rest', () => {
  it('300,000 empty pages (about 900 KB): one root issue, small answer, bounded time', async () => {
    const text = manifestWithPages(emptyObjects(300_000));
    expect(text.length).toBeGreaterThan(800_000);
    for (const path of ['/api/validate/manifest', '/api/validate/normalize']) {
      const { status, answer, body, ms } = await timedPost(path, text);
      expect(status).toBe(200);
      expect(body).toEqual({
        valid: false,
        errors: [{ field: 'root', message: `Document holds more than ${MAX_CONTRACT_DOCUMENT_VALUES} values (list items and object members)` }],
      });
      expect(answer.length).toBeLessThan(1000);
      expect(ms).toBeLessThan(BOUND_MS);
    }
  });

  it('a page list longer than the cap is refused at its path before its pages are checked', async () => {
    const { body } = await timedPost('/api/validate/manifest', manifestWithPages(emptyObjects(MAX_CONTRACT_LIST_ITEMS + 1)));
    expect(body).toEqual({ valid: false, errors: [{ field: 'spec.pages', message: `Array must contain at most ${MAX_CONTRACT_LIST_ITEMS} element(s)` }] });
  });

  it('900 empty pages (3,600 issues): the first 100 and errorsOmitted 3,500', async () => {
    for (const path of ['/api/validate/manifest', '/api/validate/normalize']) {
      const { status, answer, body, ms } = await timedPost(path, manifestWithPages(emptyObjects(900)));
      expect(status).toBe(200);
      expect(body.valid).toBe(false);
      expect(body.errors).toHaveLength(MAX_REPORTED_ISSUES);
      expect(body.errors.slice(0, 4)).toEqual(['key', 'type', 'title', 'path'].map((member) => ({ field: `spec.pages.0.${member}`, message: 'Required' })));
      expect(body.errors[99]).toEqual({ field: 'spec.pages.24.path', message: 'Required' });
      expect(body.errorsOmitted).toBe(3500);
      expect(body).not.toHaveProperty('manifest');
      expect(answer.length).toBeLessThan(10_000);
      expect(ms).toBeLessThan(BOUND_MS);
    }
  });

  it('an entity with 900 empty fields: 100 issues and the count of the rest', async () => {
    const text = `{"entity":{"key":"x","name":"X","pluralName":"Xs","fields":${emptyObjects(900)}}}`;
    const { body } = await timedPost('/api/validate/entity', text);
    expect(body.errors).toHaveLength(MAX_REPORTED_ISSUES);
    expect(body.errorsOmitted).toBe(900 * 3 - MAX_REPORTED_ISSUES);
  });

  it('a page with 900 empty data providers: 100 issues and the count of the rest', async () => {
    const text = `{"page":{"key":"p","type":"dashboard","title":"P","path":"/p","dataProviders":${emptyObjects(900)}}}`;
    const { body } = await timedPost('/api/validate/page', text);
    expect(body.errors).toHaveLength(MAX_REPORTED_ISSUES);
    expect(body.errors[0]).toEqual({ field: 'dataProviders.0.key', message: 'Required' });
    expect(body.errorsOmitted).toBe(900 * 3 - MAX_REPORTED_ISSUES);
  });

  it('an entity document with 5,000 empty field descriptors: 100 issues and the count of the rest', async () => {
    const fields = `{${Array.from({ length: 5000 }, (_, i) => `"f${i}":{}`).join(',')}}`;
    const text = `{"$schema":"https://x/entity-definition/v1.json","name":"Invoice","key":"crm.invoice","version":"1.0.0","description":"d","scope":"cell-isolated","governance_tier":"tier-2","permissions":{"view":[],"edit":[],"admin":[]},"fields":${fields}}`;
    const { status, body } = await timedPost('/api/validate/entity-document', text);
    expect(status).toBe(200);
    expect(body.errors).toHaveLength(MAX_REPORTED_ISSUES);
    expect(body.errors[0]).toEqual({ field: 'fields.f0.type', message: 'Must be one of: string, integer, number, boolean, object, array' });
    expect(body.errorsOmitted).toBe(5000 - MAX_REPORTED_ISSUES);
  });

  it('a result within the cap has no errorsOmitted member', async () => {
    const { body } = await timedPost('/api/validate/manifest', manifestWithPages(emptyObjects(1)));
    expect(body.errors).toHaveLength(4);
    expect(body).not.toHaveProperty('errorsOmitted');
  });
});

describe('guidance requests: capped arrays and text, 400 in the envelope', () => {
  const strings = (count: number, value: string) => `[${Array.from({ length: count }, () => JSON.stringify(value)).join(',')}]`;

  it('suggest-pages with 200,000 entity keys → one issue, not 200,000', async () => {
    const { status, body, ms } = await timedPost('/api/guidance/suggest-pages', `{"entities":${strings(200_000, 'a')}}`);
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_ERROR');
    expect(body.details).toEqual({ fields: [{ path: 'entities', message: `Array must contain at most ${MAX_GUIDANCE_ENTITIES} element(s)` }] });
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('more than 100 bad items → details.fields lists 100 and details.fieldsOmitted counts the rest', async () => {
    const response = post(handler, '/api/guidance/suggest-pages', { entities: Array.from({ length: 150 }, (_, i) => `Bad${i}`) });
    const error = await envelope(response, 400, 'VALIDATION_ERROR');
    expect(error.details?.fields).toHaveLength(MAX_REPORTED_ISSUES);
    expect(error.details?.fields[0].path).toBe('entities.0');
    expect(error.details?.fieldsOmitted).toBe(50);
    // The message names the issues that fit in an error's text and counts every other one.
    const shown = error.message.split('; ').length - 1;
    expect(shown).toBeGreaterThan(1);
    expect(error.message).toMatch(new RegExp(`; and ${150 - shown} more\\)\\.$`));
    expect(error.message.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_LENGTH);
  });

  it('suggest-pages with the most entities allowed answers a bounded page set', async () => {
    const entities = Array.from({ length: MAX_GUIDANCE_ENTITIES }, (_, i) => `e${i}`);
    const body = await json(post(handler, '/api/guidance/suggest-pages', { entities }));
    expect(body.pages).toHaveLength(1 + 3 * MAX_GUIDANCE_ENTITIES);
  });

  it('suggest-relations with 50,000 entities, or an entity with 50,000 fields → 400', async () => {
    const many = `{"entities":${emptyObjects(50_000).replaceAll('{}', '{"key":"a"}')}}`;
    const first = await timedPost('/api/guidance/suggest-relations', many);
    expect(first.status).toBe(400);
    expect(first.body.details.fields).toEqual([{ path: 'entities', message: `Array must contain at most ${MAX_GUIDANCE_ENTITIES} element(s)` }]);
    const wide = await timedPost('/api/guidance/suggest-relations', `{"entities":[{"key":"a","fields":${strings(50_000, 'b_id')}}]}`);
    expect(wide.status).toBe(400);
    expect(wide.body.details.fields).toEqual([{ path: 'entities.0.fields', message: `Array must contain at most ${MAX_GUIDANCE_ENTITIES} element(s)` }]);
  });

  it('suggest-relations: 200 entities × 200 fields (5.5 MB answered before) → 400; the most fields allowed give an answer no larger than suggest-pages gives', async () => {
    const relate = (entities: number, fields: number, key: (i: number) => string) =>
      JSON.stringify({
        entities: Array.from({ length: entities }, (_, i) => ({ key: key(i), fields: Array.from({ length: fields }, (_, j) => `${key(j)}_id`) })),
      });
    const short = (i: number) => `e${i}`;
    const long = (i: number) => `e${i}_${'x'.repeat(MAX_GUIDANCE_KEY_LENGTH - 8)}`;
    const wide = await timedPost('/api/guidance/suggest-relations', relate(MAX_GUIDANCE_ENTITIES, MAX_GUIDANCE_ENTITIES, short));
    expect(wide.status).toBe(400);
    expect(wide.body.details.fields).toEqual([{ path: 'entities', message: `At most ${MAX_GUIDANCE_FIELDS} field keys in all entities together` }]);
    expect(wide.answer.length).toBeLessThan(1000);
    // The cap itself is accepted; one field more is not.
    const perEntity = 20;
    const entities = MAX_GUIDANCE_FIELDS / perEntity;
    const largest = await timedPost('/api/guidance/suggest-relations', relate(entities, perEntity, long));
    expect(largest.status).toBe(200);
    expect(largest.body).toHaveLength(MAX_GUIDANCE_FIELDS);
    const pages = await post(handler, '/api/guidance/suggest-pages', { entities: Array.from({ length: MAX_GUIDANCE_ENTITIES }, (_, i) => long(i)) });
    expect(largest.answer.length).toBeLessThanOrEqual((await pages.text()).length);
    const over = JSON.parse(relate(entities, perEntity, short));
    over.entities[0].fields.push('one_more_id');
    expect((await timedPost('/api/guidance/suggest-relations', JSON.stringify(over))).status).toBe(400);
  });

  it('explain-errors with 20,000 errors → 400; with the most allowed, as many explanations', async () => {
    const { status, body } = await timedPost(
      '/api/guidance/explain-errors',
      `{"errors":${emptyObjects(20_000).replaceAll('{}', '{"field":"kind","message":"Required"}')}}`,
    );
    expect(status).toBe(400);
    expect(body.details.fields).toEqual([{ path: 'errors', message: `Array must contain at most ${MAX_EXPLAINED_ERRORS} element(s)` }]);
    const errors = Array.from({ length: MAX_EXPLAINED_ERRORS }, () => ({ field: 'kind', message: 'Required' }));
    expect(await json(post(handler, '/api/guidance/explain-errors', { errors }))).toHaveLength(MAX_EXPLAINED_ERRORS);
  });

  it('free text longer than its cap (goal, error field and message) → 400, before any pattern runs', async () => {
    const long = 'a'.repeat(500_000);
    const goal = await envelope(post(handler, '/api/guidance/recommend', { goal: long }), 400, 'VALIDATION_ERROR');
    expect(goal.details?.fields).toEqual([{ path: 'goal', message: 'String must contain at most 2000 character(s)' }]);
    const explained = await envelope(post(handler, '/api/guidance/explain-errors', { errors: [{ field: long, message: long }] }), 400, 'VALIDATION_ERROR');
    expect(explained.details?.fields.map((f: { path: string }) => f.path)).toEqual(['errors.0.field', 'errors.0.message']);
  });
});

describe('deep JSON on the validation routes', () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('5,000-deep options to /api/validate/normalize → 400 BAD_REQUEST in the envelope', async () => {
    const doc = crmManifest() as Record<string, any>;
    doc.spec.pages[0].options = '__DEEP__';
    const text = JSON.stringify({ manifest: doc }).replace('"__DEEP__"', deep(5000));
    for (const path of ['/api/validate/normalize', '/api/validate/manifest']) {
      const error = await envelope(post(handler, path, text), 400, 'BAD_REQUEST');
      expect(error.message).toMatch(/nested deeper than 64 levels/);
    }
  });

  // /api/validate/manifest skips its scan of the text for a body its compiled check proves valid and
  // shallow (see services.validateManifest); everywhere a deep part can sit, the answer stays the
  // parser's 400, and a body exactly at the limit stays valid.
  it.each<[string, (doc: Record<string, any>) => unknown]>([
    // A placer returns the whole body, or nothing to send `{ manifest: doc }`.
    [
      'page options (a member of any content)',
      (doc) => {
        doc.spec.pages[0].options = '__DEEP__';
      },
    ],
    [
      'a key a field object strips',
      (doc) => {
        doc.spec.entities[0].fields[0].extra = '__DEEP__';
      },
    ],
    ['a key the body strips', (doc) => ({ manifest: doc, extra: '__DEEP__' })],
    [
      'a described member of a recursive part (navigation children)',
      (doc) => {
        doc.spec.navigation.items[0].children = '__DEEP__';
      },
    ],
  ])('a valid manifest with %s nested past the limit → 400; at the limit → 200', async (_where, place) => {
    const doc = crmManifest() as Record<string, any>;
    const body = place(doc) ?? { manifest: doc };
    const text = JSON.stringify(body);
    const tooDeep = text.replace('"__DEEP__"', deep(200));
    const error = await envelope(post(handler, '/api/validate/manifest', tooDeep), 400, 'BAD_REQUEST');
    expect(error.message).toMatch(/nested deeper than 64 levels/);
    // The deepest placeholder value that keeps the whole body at exactly the limit.
    const atLimit = Array.from({ length: 64 }, (_, n) => text.replace('"__DEEP__"', deep(64 - n))).find((candidate) => jsonNestingDepth(candidate) === 64)!;
    expect(atLimit).toBeDefined();
    const answer = await post(handler, '/api/validate/manifest', atLimit);
    expect(answer.status).toBe(200);
  });

  it('options nested to just under the parser limit still validate (the document bound matches)', async () => {
    const doc = crmManifest() as Record<string, any>;
    doc.spec.pages[0].options = '__DEEP__';
    // body (1) → manifest (2) → spec (3) → pages (4) → page (5): 59 nested objects from options on reach exactly 64.
    const body = await json(post(handler, '/api/validate/normalize', JSON.stringify({ manifest: doc }).replace('"__DEEP__"', deep(59))));
    expect(body.valid).toBe(true);
  });
});
