/** The OpenAPI component collector: ids, nested ids, and input forms that differ from output forms. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ComponentCollector } from '../../../src/contract/docs/json-schema.ts';
import { createCorsPolicy } from '../../../src/contract/http/cors.ts';

const Kind = z.enum(['k1', 'k2']).meta({ id: 'TestKind' });
const Leaf = z.object({ a: z.string(), kind: Kind }).meta({ id: 'TestLeaf' });
const WithDefault = z.object({ leaf: Leaf, mode: z.enum(['x', 'y']).default('x') }).meta({ id: 'TestWithDefault' });
const Holder = z.object({ inner: WithDefault }).meta({ id: 'TestHolder' });

describe('ComponentCollector', () => {
  it('names components by id, pulls in nested ids, and renames differing input forms', () => {
    const collector = new ComponentCollector();
    const output = collector.use(Holder, 'output', 'unused');
    const input = collector.use(Holder, 'input', 'unused');
    const plain = collector.use(z.array(Leaf), 'output', 'LeafList');
    const components = collector.build();
    expect(output.ref()).toEqual({ $ref: '#/components/schemas/TestHolder' });
    // The default makes `mode` optional on input: WithDefault differs, and so does Holder, which refers to it.
    expect(input.ref()).toEqual({ $ref: '#/components/schemas/TestHolderInput' });
    expect(plain.ref()).toEqual({ $ref: '#/components/schemas/LeafList' });
    // Objects differ anyway (output form: additionalProperties false), so each has an Input twin.
    expect(Object.keys(components).sort()).toEqual([
      'LeafList',
      'TestHolder',
      'TestHolderInput',
      'TestKind',
      'TestLeaf',
      'TestLeafInput',
      'TestWithDefault',
      'TestWithDefaultInput',
    ]);
    expect((components.TestWithDefault as { required: string[] }).required).toEqual(['leaf', 'mode']);
    expect((components.TestWithDefaultInput as { required: string[] }).required).toEqual(['leaf']);
    expect(JSON.stringify(components.TestHolderInput)).toContain('#/components/schemas/TestWithDefaultInput');
    // Same on both sides (an enum): one component, no Input twin, referred to by both forms.
    expect(components.TestKindInput).toBeUndefined();
    expect(JSON.stringify(components.TestLeafInput)).toContain('#/components/schemas/TestKind"');
  });
});

describe('createCorsPolicy', () => {
  it('is off by default and for false', () => {
    expect(createCorsPolicy(undefined)).toBeUndefined();
    expect(createCorsPolicy(false)).toBeUndefined();
  });

  it('supports a predicate for origins', () => {
    const policy = createCorsPolicy({ origin: (origin) => origin.endsWith('.example.com') })!;
    expect(policy.headers('https://a.example.com')['access-control-allow-origin']).toBe('https://a.example.com');
    expect(policy.headers('https://example.org')['access-control-allow-origin']).toBeUndefined();
    const preflight = policy.preflight(
      new Request('http://x/', { method: 'OPTIONS', headers: { origin: 'https://a.example.com', 'access-control-request-headers': 'x-a' } }),
      'POST, OPTIONS',
    );
    expect(preflight).toMatchObject({ 'access-control-allow-methods': 'POST, OPTIONS', 'access-control-allow-headers': 'x-a' });
  });
});
