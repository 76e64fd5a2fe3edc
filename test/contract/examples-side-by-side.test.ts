/**
 * Side-by-side answers: every example validates, normalizing it answers a manifest that validates
 * again and normalizes to itself (A7), and the REST answers equal the service functions'.
 */
import { describe, expect, it } from 'vitest';
import * as services from '../../src/contract/services.ts';
import { call, handlerWith, json, post } from './support.ts';

const handler = handlerWith();
const examples = await json<Array<{ key: string }>>(call(handler, '/api/examples'));
const manifests = examples.filter((e) => !e.key.startsWith('entities/'));
const entities = examples.filter((e) => e.key.startsWith('entities/'));

describe('examples side by side', () => {
  it('has manifest and entity examples', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(2);
    expect(entities.length).toBeGreaterThanOrEqual(2);
  });

  it.each(manifests)('$key: validates, normalizes, and the normalized manifest re-validates and is a fixed point', async ({ key }) => {
    const manifest = await json(call(handler, `/api/examples/${key}`));
    expect(await json(post(handler, '/api/validate/manifest', { manifest }))).toEqual({ valid: true, errors: [] });
    const normalized = await json(post(handler, '/api/validate/normalize', { manifest }));
    expect(normalized.valid).toBe(true);
    expect(normalized.errors).toEqual([]);
    expect(normalized.manifest.spec.entities).toBeInstanceOf(Array);
    expect(normalized.manifest.spec.navigation.items).toBeInstanceOf(Array);
    expect(await json(post(handler, '/api/validate/manifest', { manifest: normalized.manifest }))).toEqual({ valid: true, errors: [] });
    const twice = await json(post(handler, '/api/validate/normalize', { manifest: normalized.manifest }));
    expect(twice.manifest).toEqual(normalized.manifest);
    expect(normalized).toEqual(services.normalizeManifest({ manifest }));
  });

  it.each(entities)('$key: validates as an EntityDefinition', async ({ key }) => {
    const entity = await json(call(handler, `/api/examples/${key}`));
    expect(await json(post(handler, '/api/validate/entity', { entity }))).toEqual({ valid: true, errors: [] });
  });

  it('REST answers equal the service answers', async () => {
    expect(await json(call(handler, '/api/primitives?category=form'))).toEqual(services.listPrimitives(handler.context, { category: 'form' }));
    expect(await json(call(handler, '/api/schemas/page?type=custom'))).toEqual(services.getPageSchema({ type: 'custom' }));
    const goal = { goal: 'helpdesk ticket tracking' };
    expect(await json(post(handler, '/api/guidance/recommend', goal))).toEqual(JSON.parse(JSON.stringify(services.recommend(goal))));
  });
});
