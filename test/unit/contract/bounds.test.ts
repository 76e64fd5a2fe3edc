/**
 * The programmatic validators are safe on any value a caller hands them: nesting deeper than the
 * JSON limit or a document bigger than the value budget gets one issue at `root` (no stack
 * overflow, no per-item work), and no result lists more than 100 issues.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContractHandler, normalizeManifest, validateEntity, validateEntityDocument, validateManifest, validatePage } from 'cellgate';
import { createContractContext } from '../../../src/contract/context.ts';
import { CellManifestSchema } from 'cellgate/schemas';
import { validateManifest as validateRequest, validatePrimitiveProps } from '../../../src/contract/services.ts';
import { withinBoundsByLength } from '../../../src/validation/bounds.ts';
import { validationResultText, type ValidationResult } from '../../../src/validation/results.ts';
import { MAX_CONTRACT_DOCUMENT_VALUES, MAX_JSON_DEPTH, MAX_REPORTED_ISSUES } from '../../../src/limits.ts';
import { crmManifest } from './validate-fixtures.ts';
import { contractErrorMap, toValidationIssues } from '../../../src/contract/schema/messages.ts';
import { Invoice } from '../governed/core-fixtures.ts';

/** An object nested `levels` deep, built iteratively (a recursive builder would overflow first). */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

const tooDeep = { field: 'root', message: `Document is nested deeper than ${MAX_JSON_DEPTH} levels` };
const tooBig = { field: 'root', message: `Document holds more than ${MAX_CONTRACT_DOCUMENT_VALUES} values (list items and object members)` };

describe('deep values never overflow the stack', () => {
  const manifest = () => {
    const doc = crmManifest() as Record<string, any>;
    doc.spec.pages[0].options = nested(100_000);
    return doc;
  };

  it('validateManifest and normalizeManifest: one root issue for 100,000-deep options', () => {
    expect(validateManifest(manifest())).toEqual({ valid: false, errors: [tooDeep] });
    expect(normalizeManifest(manifest())).toEqual({ valid: false, errors: [tooDeep] });
  });

  it('validateEntity, validatePage, validateEntityDocument, primitive props: one root issue', () => {
    expect(validateEntity(nested(5000))).toEqual({ valid: false, errors: [tooDeep] });
    expect(validatePage({ key: 'p', type: 'dashboard', title: 'P', path: '/', options: nested(5000) })).toEqual({ valid: false, errors: [tooDeep] });
    expect(validateEntityDocument(nested(5000))).toEqual({ valid: false, errors: [tooDeep] });
    const context = createContractContext();
    const key = context.registry.list({})[0]!.key;
    expect(validatePrimitiveProps(context, { key, props: nested(5000) })).toEqual({ valid: false, errors: [{ ...tooDeep, field: 'props' }] });
  });

  it('scaffold with 100,000-deep props: 400 VALIDATION_ERROR at root, not a stack overflow', async () => {
    let props: Record<string, unknown> = { type: 'object', properties: {} };
    for (let i = 0; i < 100_000; i++) props = { type: 'object', properties: { a: props } };
    const error = await createContractContext()
      .registry.scaffold({ name: 'deep-one', label: 'Deep', props })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [tooDeep].map(({ field, message }) => ({ path: field, message })) } });
  });

  it('nesting at the limit is still checked normally', () => {
    const doc = crmManifest() as Record<string, any>;
    // manifest (1) → spec (2) → pages (3) → page (4): options may nest 60 more levels.
    doc.spec.pages[0].options = nested(MAX_JSON_DEPTH - 4);
    expect(validateManifest(doc)).toEqual({ valid: true, errors: [] });
    doc.spec.pages[0].options = nested(MAX_JSON_DEPTH - 3);
    expect(validateManifest(doc)).toEqual({ valid: false, errors: [tooDeep] });
  });
});

describe('big documents and long issue lists', () => {
  it('a document over the value budget gets one root issue, whatever its shape', () => {
    const doc = crmManifest() as Record<string, any>;
    doc.spec.pages = Array.from({ length: 300_000 }, () => ({}));
    const started = performance.now();
    expect(validateManifest(doc)).toEqual({ valid: false, errors: [tooBig] });
    expect(performance.now() - started).toBeLessThan(2000);
    const wide = Object.fromEntries(Array.from({ length: MAX_CONTRACT_DOCUMENT_VALUES + 1 }, (_, i) => [`k${i}`, i]));
    expect(validatePage({ key: 'p', type: 'dashboard', title: 'P', path: '/', options: wide })).toEqual({ valid: false, errors: [tooBig] });
  });

  it('more than 100 issues: the first 100 in order, errorsOmitted counts the rest', () => {
    const doc = crmManifest() as Record<string, any>;
    doc.spec.pages = Array.from({ length: 60 }, () => ({}));
    const result = validateManifest(doc);
    expect(result.errors).toHaveLength(MAX_REPORTED_ISSUES);
    expect(result.errors[0]).toEqual({ field: 'spec.pages.0.key', message: 'Required' });
    expect(result.errorsOmitted).toBe(60 * 4 - MAX_REPORTED_ISSUES);
    expect(normalizeManifest(doc)).toEqual({ valid: false, errors: result.errors, errorsOmitted: result.errorsOmitted });
  });

  it('exactly 100 issues: no errorsOmitted member', () => {
    const doc = crmManifest() as Record<string, any>;
    doc.spec.pages = Array.from({ length: 25 }, () => ({}));
    const result = validateManifest(doc);
    expect(result.errors).toHaveLength(100);
    expect(result).not.toHaveProperty('errorsOmitted');
  });
});

describe('checking stops soon after the reportable issues are found', () => {
  it("nineteen entities of 999 empty fields: bounded time, and the first 100 issues are exactly zod's", () => {
    const doc = crmManifest() as Record<string, any>;
    doc.spec.entities = Array.from({ length: 19 }, (_, i) => ({ key: `e${i}`, name: 'E', pluralName: 'Es', fields: Array.from({ length: 999 }, () => ({})) }));
    const started = performance.now();
    const result = validateManifest(doc);
    const elapsed = performance.now() - started;
    // Without the budget (no issueBudget option): the full list, 56,943 issues.
    const full = CellManifestSchema.safeParse(doc, { error: contractErrorMap });
    expect(full.success).toBe(false);
    const all = toValidationIssues(full.error!.issues);
    expect(all.length).toBe(19 * 999 * 3);
    expect(result.errors).toEqual(all.slice(0, MAX_REPORTED_ISSUES));
    // The first entity's fields are all found; the other eighteen stop at their first problem.
    expect(result.errorsOmitted).toBe(999 * 3 + 18 - MAX_REPORTED_ISSUES);
    expect(elapsed).toBeLessThan(1500);
  });

  it('an entity document with 5,000 bad field descriptors lists the first 100 exactly', () => {
    const fields = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`f${i}`, {}]));
    const doc = { ...JSON.parse(JSON.stringify(Invoice)), fields };
    const result = validateEntityDocument(doc);
    expect(result.errors).toHaveLength(MAX_REPORTED_ISSUES);
    expect(result.errors[0]!.field).toBe('fields.f0.type');
    expect(result.errors[99]!.field).toBe('fields.f99.type');
    expect(result.errorsOmitted).toBeGreaterThan(0);
  });
});

describe('skipping the bounds walk for short client texts', () => {
  /** Values as the bound counts them: list items plus object members, at every level. */
  const countValues = (value: unknown): number =>
    value === null || typeof value !== 'object' ? 0 : Object.values(value).reduce<number>((sum, child) => sum + 1 + countValues(child), 0);

  it('a JSON text holds at most half its length in values, so a short one cannot pass the budget', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        expect(countValues(value) * 2).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 500 },
    );
    expect(countValues(JSON.parse('[[[1,1],[]],{"":1}]'))).toBe(7); // dense shapes: 7 values in 19 characters
    expect(withinBoundsByLength(2 * MAX_CONTRACT_DOCUMENT_VALUES)).toBe(true);
    expect(withinBoundsByLength(2 * MAX_CONTRACT_DOCUMENT_VALUES + 1)).toBe(false);
  });

  it('the REST route still refuses an over-budget manifest (its text is too long to skip the walk)', async () => {
    const manifest = crmManifest() as Record<string, any>;
    manifest.spec.pages[0].options = { list: Array.from({ length: MAX_CONTRACT_DOCUMENT_VALUES }, () => 0) };
    const body = JSON.stringify({ manifest });
    expect(withinBoundsByLength(body.length)).toBe(false);
    expect(validateRequest(JSON.parse(body), body.length)).toEqual({ valid: false, errors: [tooBig] });
    const response = await createContractHandler()(
      new Request('http://localhost/api/validate/manifest', { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
    );
    expect(await response.json()).toEqual({ valid: false, errors: [tooBig] });
  });

  it('a short text gets the same answer with or without the walk', () => {
    for (const manifest of [crmManifest(), { ...crmManifest(), kind: 'Nope' }, { apiVersion: 1 }, {}]) {
      const body = JSON.stringify({ manifest });
      expect(validateRequest(JSON.parse(body), body.length)).toEqual(validateManifest(manifest));
    }
  });
});

describe('validationResultText', () => {
  it.each<[string, ValidationResult]>([
    ['valid', { valid: true, errors: [] }],
    ['invalid', { valid: false, errors: [{ field: 'kind', message: 'Required' }] }],
    ['with errors left out', { valid: false, errors: [{ field: 'root', message: 'x' }], errorsOmitted: 3 }],
    ['valid with another member', { valid: true, errors: [], extra: 1 } as ValidationResult],
    ['valid with an explicit undefined member', { valid: true, errors: [], errorsOmitted: undefined }],
  ])('is JSON.stringify of a %s result', (_name, result) => {
    expect(validationResultText(result)).toBe(JSON.stringify(result));
  });
});
