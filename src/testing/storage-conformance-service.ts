/**
 * Service-level cases of the storage conformance suite: the governed core's policies (soft delete
 * and restore, rollback, conflicts, idempotency, redaction) run on the driver under test, so a
 * driver is proven with the core that will really use it.
 */
import { workspaceAdminContext } from './storage-conformance-fixtures.ts';
import { beforeAll, expect } from 'vitest';
import { describe, it } from './storage-conformance-select.ts';
import { defineEntity } from '../entity-document/index.ts';
import type { CellgateError } from '../errors.ts';
import { createGovernedService, type GovernedContext, type GovernedService } from '../governed/service.ts';
import type { StorageDriver } from '../storage/types.ts';

type Current = () => StorageDriver;

/** Reads every audit row the driver persisted for a tenant, straight from its store (SQL rows, not the seam). */
export type RawAuditRows = (driver: StorageDriver, tenantId: string) => Promise<unknown[]>;

const SECRET = 'tok_SECRET_c0nformance';

const ServiceInvoice = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Bill',
  key: 'conformance.bill',
  version: '1.0.0',
  description: 'An invoice of one cell, with a credential field',
  scope: 'cell-isolated',
  governance_tier: 'tier-1',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: {
    invoice_number: { type: 'string' },
    amount: { type: 'number' },
    email: { type: 'string', format: 'email', sensitive: true },
    payment_token: { type: 'string', optional: true, sensitive: true, credential: true },
  },
  data: { sorting: { allowedFields: ['amount', 'created_at'], default: { field: 'created_at', direction: 'desc' } } },
});

const context = (): GovernedContext =>
  workspaceAdminContext(['conformance.bills.read'], { requestId: 'req-conformance', traceId: null, ip: '127.0.0.1', userAgent: 'conformance' });

const input = { invoiceNumber: 'B-1', amount: 10, email: 'pay@example.com', paymentToken: SECRET };

/** Service cases, registered inside the suite's describe. */
export function serviceConformanceCases(driver: Current, rawAuditRows?: RawAuditRows): void {
  describe('governed service on this driver', () => {
    let service: GovernedService;
    beforeAll(async () => {
      service = createGovernedService({ entity: ServiceInvoice, storage: driver(), audit: { storeSnapshots: true }, redaction: { hashSecret: 'conformance' } });
      await driver().migrate([service.model]);
    });

    it('soft-deletes, hides from lists, and restores by rollback as a new version', async () => {
      const ctx = context();
      const created = await service.create(ctx, input);
      const deleted = await service.delete(ctx, created.data.id, { expectedVersion: 1 });
      expect(deleted.data.version).toBe(2);
      expect(deleted.data.deletedAt).not.toBeNull();
      expect((await service.list(ctx)).meta.total).toBe(0);
      const restored = await service.rollback(ctx, created.data.id, { targetVersion: 1, reason: 'mistake' });
      expect(restored.data).toMatchObject({ version: 3, deletedAt: null, invoiceNumber: 'B-1' });
      expect((await service.list(ctx)).data.map((record) => record.id)).toEqual([created.data.id]);
      const history = await service.history(ctx, { resourceId: created.data.id });
      expect(history.data.map((audit) => [audit.eventType, audit.resourceVersion])).toEqual([
        ['entity.restored', 3],
        ['entity.deleted', 2],
        ['entity.created', 1],
      ]);
    });

    it('rolls back to an earlier version, sensitive values included, and keeps the history', async () => {
      const ctx = context();
      const created = await service.create(ctx, input);
      await service.update(ctx, created.data.id, { expectedVersion: 1, amount: 99, paymentToken: 'tok_SECRET_second' });
      const rolled = await service.rollback(ctx, created.data.id, { targetVersion: 1, expectedVersion: 2 });
      expect(rolled.data).toMatchObject({ version: 3, amount: 10, paymentToken: SECRET });
      expect((await service.get(ctx, created.data.id)).data).toMatchObject({ version: 3, amount: 10 });
      expect((await service.versions(ctx, created.data.id)).data.map((version) => version.version)).toEqual([3, 2, 1]);
    });

    it('answers CONFLICT to a stale version and lets one of many concurrent updates win', async () => {
      const ctx = context();
      const created = await service.create(ctx, input);
      const stale = await service.update(ctx, created.data.id, { expectedVersion: 7, amount: 1 }).catch((error: unknown) => error);
      expect((stale as CellgateError).code).toBe('CONFLICT');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) => service.update(ctx, created.data.id, { expectedVersion: 1, amount: index })),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect((outcome.reason as CellgateError).code).toBe('CONFLICT');
      }
      const history = await service.history(ctx, { resourceId: created.data.id });
      expect(history.data.map((audit) => audit.resourceVersion)).toEqual([2, 1]);
    });

    it('replays an idempotent create without a second record', async () => {
      const ctx = context();
      const first = await service.create(ctx, input, { idempotencyKey: 'key-1' });
      const again = await service.create(ctx, input, { idempotencyKey: 'key-1' });
      expect(again.data.id).toBe(first.data.id);
      expect((await service.list(ctx)).meta.total).toBe(1);
    });

    it('never persists a credential or sensitive value in audit records', async () => {
      const ctx = context();
      const created = await service.create(ctx, input);
      await service.update(ctx, created.data.id, { expectedVersion: 1, paymentToken: 'tok_SECRET_second', email: 'other@example.com' });
      await service.delete(ctx, created.data.id, { expectedVersion: 2 });
      const seam = await driver().listAudit({ tenantId: ctx.actor.tenantId, limit: 100 });
      expect(seam.records).toHaveLength(3);
      const text = JSON.stringify(seam.records);
      expect(text).not.toMatch(/tok_SECRET|pay@example\.com|other@example\.com/);
      if (rawAuditRows) {
        const rows = await rawAuditRows(driver(), ctx.actor.tenantId);
        expect(rows).toHaveLength(3);
        expect(JSON.stringify(rows)).not.toMatch(/tok_SECRET|pay@example\.com|other@example\.com/);
      }
    });
  });
}
