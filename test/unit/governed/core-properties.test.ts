import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CellgateError, applyPatch, diffStates } from 'cellgate';
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
