/** Normalization (docs/decisions/A07.md): collections filled, zod defaults applied, idempotent, re-validates. */
import { describe, expect, it } from 'vitest';
import { getExample, listExamples, normalizeManifest, validateEntity, validateManifest } from 'cellgate';
import { crmManifest } from './validate-fixtures.ts';

const minimal = () => ({
  apiVersion: 'platform/v1alpha1',
  kind: 'Cell',
  metadata: { key: 'minimal', name: 'Minimal Cell', version: '1.0.0' },
  spec: { mount: { mountPath: '/', landingPage: 'dashboard' }, pages: [{ key: 'dashboard', type: 'dashboard', title: 'Dashboard', path: '/dashboard' }] },
});

describe('normalizeManifest', () => {
  it('fills omitted collections and puts spec keys in schema order', () => {
    const result = normalizeManifest(minimal());
    expect(result).toEqual({
      valid: true,
      manifest: { ...minimal(), spec: { mount: minimal().spec.mount, entities: [], pages: minimal().spec.pages, navigation: { items: [] }, roles: [] } },
      errors: [],
    });
    expect(Object.keys(result)).toEqual(['valid', 'manifest', 'errors']);
    expect(result.valid && Object.keys(result.manifest.spec)).toEqual(['mount', 'entities', 'pages', 'navigation', 'roles']);
  });

  it('fills zod defaults: governance and dataContext.idParam', () => {
    const result = normalizeManifest(crmManifest());
    if (!result.valid) throw new Error('fixture must be valid');
    const [customer, , invoice] = result.manifest.spec.entities ?? [];
    expect(customer?.governance).toEqual({ tier: 'tier-1', rollbackEnabled: true });
    expect(invoice?.governance).toEqual({ tier: 'tier-2', rollbackEnabled: true });
    expect(result.manifest.spec.pages?.[2]?.dataContext).toEqual({ entityKey: 'customer', idParam: 'id' });
  });

  it('drops unknown members of lenient objects (fields, navigation items)', () => {
    const doc = crmManifest() as ReturnType<typeof crmManifest> & Record<string, never>;
    Object.assign(doc.spec.entities[1]!.fields[0]!, { legacy: true });
    const result = normalizeManifest(doc);
    expect(result.valid && result.manifest.spec.entities?.[1]?.fields[0]).toEqual({ key: 'first_name', type: 'string', name: 'First name' });
  });

  it('is idempotent and its output re-validates, even with navigation defaulted to no items', () => {
    const once = normalizeManifest(minimal());
    if (!once.valid) throw new Error('must be valid');
    expect(normalizeManifest(once.manifest)).toEqual(once);
    expect(validateManifest(once.manifest)).toEqual({ valid: true, errors: [] });
  });

  it('does not touch its input', () => {
    const input = crmManifest();
    const copy = structuredClone(input);
    normalizeManifest(input);
    expect(input).toEqual(copy);
  });

  it('answers invalid input without a manifest member', () => {
    const result = normalizeManifest({ apiVersion: 'platform/v1alpha1' });
    expect(Object.keys(result)).toEqual(['valid', 'errors']);
    expect(result).toEqual({
      valid: false,
      errors: [
        { field: 'kind', message: 'Required' },
        { field: 'metadata', message: 'Required' },
        { field: 'spec', message: 'Required' },
      ],
    });
  });

  it('reports semantic errors too', () => {
    const doc = minimal();
    doc.spec.mount.landingPage = 'nowhere';
    expect(normalizeManifest(doc)).toEqual({
      valid: false,
      errors: [{ field: 'spec.mount.landingPage', message: 'landingPage "nowhere" does not reference a valid page key' }],
    });
  });

  it('every bundled example validates, and each manifest normalizes idempotently', () => {
    const keys = listExamples().map((entry) => entry.key);
    expect(keys).toEqual(expect.arrayContaining(['minimal-manifest', 'crm-manifest', 'entities/customer.entity', 'entities/invoice.entity']));
    for (const key of keys) {
      const doc = getExample(key);
      if (key.startsWith('entities/')) {
        expect(validateEntity(doc), key).toEqual({ valid: true, errors: [] });
        continue;
      }
      const once = normalizeManifest(doc);
      expect(once.valid, key).toBe(true);
      if (once.valid) expect(normalizeManifest(once.manifest)).toEqual(once);
    }
  });
});
