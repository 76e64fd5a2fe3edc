import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CellgateError } from 'cellgate';
import { applyPatch } from '../../../src/governed/patch.ts';
import { diffStates } from '../../../src/governed/audit/index.ts';
import { MAX_NESTED_DIFF_OPERATIONS } from '../../../src/limits.ts';
import { customerInput, setup, wsCtx } from './core-fixtures.ts';

const jsonObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });

describe('properties', () => {
  it('applying the diff of two states to the first gives the second', () => {
    fc.assert(
      fc.property(jsonObject, jsonObject, (before, after) => {
        // JSON values only: a round trip through JSON drops -0 and such, as the wire would.
        const a = JSON.parse(JSON.stringify(before)) as Record<string, unknown>;
        const b = JSON.parse(JSON.stringify(after)) as Record<string, unknown>;
        const safe = (o: Record<string, unknown>) => !JSON.stringify(o).match(/"(__proto__|constructor|prototype)"/);
        fc.pre(safe(a) && safe(b));
        expect(applyPatch(a, diffStates(a, b))).toEqual(b);
      }),
      { numRuns: 300 },
    );
  });

  it('records a change inside an object field key by key up to the nested limit, and as one replace beyond it', () => {
    const keys = (n: number, value: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
    const limit = MAX_NESTED_DIFF_OPERATIONS;
    const at = diffStates({ o: keys(limit, 0) }, { o: keys(limit, 1) });
    expect(at).toHaveLength(limit);
    expect(at[0]).toEqual({ op: 'replace', path: '/o/k0', value: 1 });
    const over = diffStates({ o: keys(limit + 1, 0) }, { o: keys(limit + 1, 1) });
    expect(over).toEqual([{ op: 'replace', path: '/o', value: keys(limit + 1, 1) }]);
    // Inner levels collapse first; an outer level counts what its children left.
    const nested = diffStates({ o: { p: keys(limit + 1, 0), q: 1 } }, { o: { p: keys(limit + 1, 1), q: 2 } });
    expect(nested).toEqual([
      { op: 'replace', path: '/o/p', value: keys(limit + 1, 1) },
      { op: 'replace', path: '/o/q', value: 2 },
    ]);
    // 150,000 changed keys: no stack overflow (a spread of the nested operations overflowed), and the patch stays exact.
    const before = { o: keys(150_000, 0), t: 'x' };
    const after = { o: keys(150_000, 1), t: 'y' };
    const diff = diffStates(before, after);
    expect(diff).toEqual([
      { op: 'replace', path: '/o', value: after.o },
      { op: 'replace', path: '/t', value: 'y' },
    ]);
    const some = { before: { o: keys(5_000, 0) }, after: { o: keys(5_000, 1) } };
    expect(applyPatch(some.before, diffStates(some.before, some.after))).toEqual(some.after);
  });

  it('random bodies never fail with anything but a CellgateError, and refused ones change nothing', async () => {
    const { service } = await setup();
    const created = await service.create(wsCtx(), customerInput);
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), fc.boolean(), async (body, asPatch) => {
        const before = await service.get(wsCtx(), created.data.id);
        const payload = asPatch ? { expectedVersion: before.meta.version, patch: body } : body;
        for (const attempt of [
          () => service.create(wsCtx(), body as never),
          () => service.update(wsCtx(), created.data.id, payload as never),
          () => service.rollback(wsCtx(), created.data.id, body as never),
        ]) {
          const outcome = await attempt().then(
            () => 'ok',
            (error: unknown) => error,
          );
          if (outcome !== 'ok') {
            expect(outcome).toBeInstanceOf(CellgateError);
            expect((outcome as CellgateError).status).toBeLessThan(500);
          }
        }
        const after = await service.get(wsCtx(), created.data.id);
        // Either a valid change went through as a new version, or nothing changed at all.
        if (after.meta.version === before.meta.version) expect(after).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });
});
