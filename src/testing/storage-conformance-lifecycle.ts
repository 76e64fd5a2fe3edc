/**
 * Lifecycle cases of the storage conformance suite (docs/lifecycle.md): retention through
 * `purgeHistory` on the driver under test leaves newer history intact (audit, version states a
 * record still needs, the outbox, cursors handed out before), the purge of soft-deleted records
 * (row and version states gone, an `entity.purged` audit record without values and its event),
 * refusals (immutable tenant, an actor who is no tenant-wide admin) and bounded batches.
 */
import { beforeAll, expect } from 'vitest';
import { defineEntity } from '../entity-document/index.ts';
import { CellgateError } from '../errors.ts';
import { purgeHistory, purgeHistoryAsOperator, type PurgeHistoryOptions } from '../governed/lifecycle/purge-history.ts';
import { createGovernedService, type Actor, type GovernedContext, type GovernedService, type GovernedServiceOptions } from '../governed/service.ts';
import type { AuditRecord, StorageDriver, StoredEvent } from '../storage/types.ts';
import { describe, it } from './storage-conformance-select.ts';

type Current = () => StorageDriver;

const SECRET = 'tok_SECRET_lifecycle';
const DAY_MS = 86_400_000;

const entity = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Contract',
  key: 'conformance_lifecycle.contract',
  version: '1.0.0',
  description: 'An entity of the lifecycle conformance cases',
  scope: 'cell-isolated',
  governance_tier: 'tier-1',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: {
    title: { type: 'string' },
    amount: { type: 'number' },
  },
});

/** A tenant-wide admin with the audit permissions, in a fresh tenant, workspace and cell. */
function context(): GovernedContext {
  const actor: Actor = {
    id: crypto.randomUUID(),
    type: 'user',
    tenantId: crypto.randomUUID(),
    roles: ['admin'],
    workspaces: {},
    permissions: ['audit:read', 'audit:restore'],
  };
  return { actor, scope: { workspaceId: crypto.randomUUID(), cellId: crypto.randomUUID() } };
}

/** Every audit record of a tenant, newest first, page by page. */
async function allAudit(driver: StorageDriver, tenantId: string): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await driver.listAudit({ tenantId, limit: 3, ...(cursor === undefined ? {} : { cursor }) });
    out.push(...page.records);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
}

async function allEvents(driver: StorageDriver, tenantId: string): Promise<StoredEvent[]> {
  return driver.events.listEvents({ tenantId, limit: 500 });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lifecycle cases, registered inside the suite's describe. */
export function lifecycleConformanceCases(driver: Current): void {
  describe('lifecycle: retention, purge, immutability', () => {
    const services = new Map<string, GovernedService>();
    const service = (name: string, options: Partial<GovernedServiceOptions> = {}): GovernedService => {
      let built = services.get(name);
      if (built === undefined) {
        built = createGovernedService({ entity, storage: driver(), redaction: { hashSecret: 'conformance' }, ...options });
        services.set(name, built);
      }
      return built;
    };
    const purge = (target: GovernedService, options: Omit<PurgeHistoryOptions, 'resources'>) => purgeHistory({ resources: [target], ...options });

    beforeAll(async () => {
      await driver().migrate([service('retain', { audit: { retentionDays: 1 } }).model]);
    });

    it('retention removes history older than the period and leaves newer history, needed versions and cursors intact', async () => {
      const retain = service('retain');
      const ctx = context();
      const tenantId = ctx.actor.tenantId;
      const kept = await retain.create(ctx, { title: SECRET, amount: 1 });
      const id = kept.data.id;
      await retain.update(ctx, id, { expectedVersion: 1, amount: 2 });
      await retain.update(ctx, id, { expectedVersion: 2, amount: 3 });
      const gone = await retain.create(ctx, { title: 'deleted', amount: 1 });
      await retain.update(ctx, gone.data.id, { expectedVersion: 1, amount: 2 });
      await retain.delete(ctx, gone.data.id, { expectedVersion: 2 });
      // Mark every event fanned out with no subscription: delivered, so the outbox may trim them.
      await driver().events.fanOut(500, () => [], new Date().toISOString());
      const firstPage = await driver().listAudit({ tenantId, limit: 2 });
      await pause(5);
      const cutoff = Date.now();
      await pause(5);
      await retain.update(ctx, id, { expectedVersion: 3, amount: 4 });
      const fresh = await retain.create(ctx, { title: 'fresh', amount: 9 });

      const report = await purge(retain, { actor: ctx.actor, now: new Date(cutoff + DAY_MS) });
      expect(report.tenants).toHaveLength(1);
      expect(report.tenants[0]!.retention).toMatchObject({ before: new Date(cutoff).toISOString(), auditRecords: 6, versionStates: 4, events: 6 });

      const audit = await allAudit(driver(), tenantId);
      const purged = audit.filter((record) => record.eventType === 'audit.purged');
      expect(purged).toHaveLength(1);
      expect(purged[0]).toMatchObject({ actorId: ctx.actor.id, resourceId: tenantId, workspaceId: null });
      expect((purged[0]!.snapshot as { removed: unknown }).removed).toEqual({ auditRecords: 6, versionStates: 4, events: 6, deliveries: 0 });
      expect(audit.filter((record) => record.eventType !== 'audit.purged').map((record) => [record.resourceId, record.resourceVersion])).toEqual([
        [fresh.data.id, 1],
        [id, 4],
      ]);
      expect(JSON.stringify(audit)).not.toContain(SECRET);
      // A cursor handed out before the purge still reads (what is left below it: nothing older).
      const after = await driver().listAudit({ tenantId, limit: 10, cursor: firstPage.nextCursor! });
      expect(after.records.every((record) => record.eventType === 'audit.purged' || record.occurredAt >= new Date(cutoff).toISOString())).toBe(true);

      const model = retain.model;
      const scope = { tenantId, workspaceId: ctx.scope!.workspaceId!, cellId: ctx.scope!.cellId! };
      const versions = async (recordId: string, upTo: number) =>
        Promise.all(Array.from({ length: upTo }, async (_, index) => (await driver().getVersionState(model, scope, recordId, index + 1)) !== null));
      expect(await versions(id, 4)).toEqual([false, false, false, true]);
      // A deleted record keeps its deleted state and the one before (what a restore needs).
      expect(await versions(gone.data.id, 3)).toEqual([false, true, true]);
      // A second run finds nothing more and writes no record.
      const again = await purge(retain, { actor: ctx.actor, now: new Date(cutoff + DAY_MS) });
      expect(again.tenants[0]!.retention).toMatchObject({ auditRecords: 0, versionStates: 0, events: 0 });
      expect((await allAudit(driver(), tenantId)).filter((record) => record.eventType === 'audit.purged')).toHaveLength(1);
      const restored = await retain.rollback(ctx, gone.data.id, { targetVersion: 2 });
      expect(restored.data).toMatchObject({ amount: 2, deletedAt: null });
      // A rollback to a removed version is refused, not a 500.
      await expect(retain.rollback(ctx, id, { targetVersion: 1 })).rejects.toMatchObject({ code: 'INVALID_TARGET_VERSION' });

      const events = await allEvents(driver(), tenantId);
      expect(events.map((event) => [event.resourceId, event.version])).toEqual([
        [id, 4],
        [fresh.data.id, 1],
        [gone.data.id, 4],
      ]);
    });

    it('keeps events with a pending or dead delivery; removes delivered ones and ones never fanned out', async () => {
      const retain = service('retain');
      const ctx = context();
      const tenantId = ctx.actor.tenantId;
      for (let index = 0; index < 2; index += 1) await retain.create(ctx, { title: `t${index}`, amount: index });
      const [first, second] = await allEvents(driver(), tenantId);
      // Fan out both events to one subscription, then deliver `first` and give up on `second`.
      const subscription = `sub-${crypto.randomUUID()}`;
      const now = new Date().toISOString();
      await driver().events.fanOut(500, (event) => (event.id === first!.id || event.id === second!.id ? [subscription] : []), now);
      const claimed = (await driver().events.claimDeliveries({ now, limit: 500, owner: 'o', leaseUntil: new Date(Date.now() + 60_000).toISOString() })).filter(
        (item) => item.delivery.subscriptionId === subscription,
      );
      for (const item of claimed) {
        const delivered = item.event.id === first!.id;
        await driver().events.settleDelivery('o', {
          subscriptionId: subscription,
          eventId: item.event.id,
          state: delivered ? 'delivered' : 'dead',
          attempts: 1,
          nextAttemptAt: null,
          lastStatus: delivered ? 200 : 500,
          lastError: delivered ? null : 'failed',
          at: now,
        });
      }
      // The third event is written after the fan-out: never fanned out (as where no dispatcher
      // runs), it goes with the rest of the period's history.
      await retain.create(ctx, { title: 'late', amount: 1 });
      await pause(5);
      const report = await purge(retain, { actor: ctx.actor, now: new Date(Date.now() + DAY_MS) });
      expect(report.tenants[0]!.retention).toMatchObject({ events: 2, deliveries: 1 });
      const left = await allEvents(driver(), tenantId);
      expect(left.map((event) => event.resourceId)).toEqual([second!.resourceId]);
      // Fan-out after the trim skips what retention removed and still finds nothing to send twice.
      await driver().events.fanOut(500, () => [subscription], new Date().toISOString());
      expect((await driver().events.listDeliveries(second!.id)).map((delivery) => delivery.state)).toEqual(['dead']);
      expect((await driver().events.listDeliveries(second!.id)).map((delivery) => delivery.state)).toEqual(['dead']);
      expect(await driver().events.listDeliveries(first!.id)).toEqual([]);
    });

    it('purges soft-deleted records past their period: row and version states go, an entity.purged record without values stays', async () => {
      const purging = service('purging', { purgeDeletedAfterDays: 30 });
      const ctx = context();
      const tenantId = ctx.actor.tenantId;
      const doomed = await purging.create(ctx, { title: SECRET, amount: 7 });
      await purging.update(ctx, doomed.data.id, { expectedVersion: 1, amount: 8 });
      await purging.delete(ctx, doomed.data.id, { expectedVersion: 2 });
      const live = await purging.create(ctx, { title: 'live', amount: 1 });
      const recent = await purging.create(ctx, { title: 'recent', amount: 1 });
      await purging.delete(ctx, recent.data.id, { expectedVersion: 1 });

      // Within the period nothing happens.
      expect((await purge(purging, { actor: ctx.actor, now: new Date(Date.now() + 29 * DAY_MS) })).tenants[0]!.purged).toEqual({
        records: 0,
        versionStates: 0,
      });
      const report = await purge(purging, { actor: ctx.actor, now: new Date(Date.now() + 31 * DAY_MS), batchSize: 1 });
      expect(report.tenants[0]!.purged).toEqual({ records: 2, versionStates: 5 });
      expect(report.tenants[0]!.retention).toBeNull();

      const scope = { tenantId, workspaceId: ctx.scope!.workspaceId!, cellId: ctx.scope!.cellId! };
      expect(await driver().get(purging.model, scope, doomed.data.id)).toBeNull();
      for (const version of [1, 2, 3]) expect(await driver().getVersionState(purging.model, scope, doomed.data.id, version)).toBeNull();
      expect((await purging.get(ctx, live.data.id)).data.title).toBe('live');
      const audit = await allAudit(driver(), tenantId);
      const records = audit.filter((record) => record.eventType === 'entity.purged');
      expect(records.map((record) => record.resourceId).sort()).toEqual([doomed.data.id, recent.data.id].sort());
      const mine = records.find((record) => record.resourceId === doomed.data.id)!;
      expect(mine).toMatchObject({ actorId: ctx.actor.id, resourceVersion: 3, snapshot: null, resourceType: purging.resourceType });
      expect(mine.diff ?? []).toEqual([]);
      // The record's history up to the delete stays (until retention), and holds no purged values beyond it.
      expect(audit.filter((record) => record.resourceId === doomed.data.id).map((record) => record.eventType)).toEqual([
        'entity.purged',
        'entity.deleted',
        'entity.updated',
        'entity.created',
      ]);
      expect(JSON.stringify(records)).not.toContain(SECRET);
      const events = (await allEvents(driver(), tenantId)).filter((event) => event.type === 'entity.purged');
      expect(events.map((event) => event.auditId).sort()).toEqual(records.map((record) => record.id).sort());
      expect(JSON.stringify(events)).not.toContain(SECRET);
    });

    it('refuses under immutability, whoever asks, and changes nothing', async () => {
      const locked = service('locked', { audit: { retentionDays: 1, immutability: true }, purgeDeletedAfterDays: 1 });
      const ctx = context();
      const tenantId = ctx.actor.tenantId;
      const created = await locked.create(ctx, { title: 'x', amount: 1 });
      await locked.delete(ctx, created.data.id, { expectedVersion: 1 });
      const later = new Date(Date.now() + 10 * DAY_MS);
      const runs = [
        () => purge(locked, { actor: ctx.actor, tenantId, now: later }),
        () => purgeHistoryAsOperator({ resources: [locked], operator: 'conformance', tenantId, now: later }),
      ];
      for (const run of runs) {
        const error = await run().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(CellgateError);
        expect((error as CellgateError).code).toBe('AUDIT_IMMUTABLE');
        expect((error as CellgateError).status).toBe(409);
      }
      expect((await allAudit(driver(), tenantId)).map((record) => record.eventType)).toEqual(['entity.deleted', 'entity.created']);
      const scope = { tenantId, workspaceId: ctx.scope!.workspaceId!, cellId: ctx.scope!.cellId! };
      expect(await driver().get(locked.model, scope, created.data.id)).not.toBeNull();
      expect(await driver().getVersionState(locked.model, scope, created.data.id, 1)).not.toBeNull();
    });

    it('lets only a tenant-wide admin purge, and only its own tenant', async () => {
      const retain = service('retain');
      const ctx = context();
      const workspaceAdmin: Actor = { ...ctx.actor, roles: [], workspaces: { [ctx.scope!.workspaceId!]: ['admin'] } };
      await expect(purge(retain, { actor: workspaceAdmin })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(purge(retain, { actor: { ...ctx.actor, roles: ['editor'] } })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(purge(retain, { actor: ctx.actor, tenantId: crypto.randomUUID() })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    });

    it('works in bounded batches: each removal call takes at most its limit, one audit.purged record per batch', async () => {
      const retain = service('retain');
      const ctx = context();
      const tenantId = ctx.actor.tenantId;
      for (let index = 0; index < 5; index += 1) await retain.create(ctx, { title: `b${index}`, amount: index });
      await pause(5);
      const before = new Date().toISOString();
      const probe = await driver()
        .maintenance('retention', async (session) => {
          const range = await session.removeAuditBefore(tenantId, before, 2);
          throw Object.assign(new Error('probe'), { range });
        })
        .catch((error: { range?: unknown }) => error.range);
      expect(probe).toMatchObject({ count: 2 });
      expect(await allAudit(driver(), tenantId)).toHaveLength(5);

      const report = await purge(retain, { actor: ctx.actor, now: new Date(Date.now() + DAY_MS), batchSize: 2 });
      expect(report.tenants[0]!.retention).toMatchObject({ auditRecords: 5 });
      const purged = (await allAudit(driver(), tenantId)).filter((record) => record.eventType === 'audit.purged');
      expect(purged.length).toBeGreaterThanOrEqual(3);
      expect(purged.reduce((sum, record) => sum + (record.snapshot as { removed: { auditRecords: number } }).removed.auditRecords, 0)).toBe(5);
    });

    it('counts without removing in a dry run', async () => {
      const retain = service('retain');
      const ctx = context();
      await retain.create(ctx, { title: 'd', amount: 1 });
      await pause(5);
      const report = await purge(retain, { actor: ctx.actor, now: new Date(Date.now() + DAY_MS), dryRun: true });
      expect(report.dryRun).toBe(true);
      expect(report.tenants[0]!.retention).toMatchObject({ auditRecords: 1 });
      expect(await allAudit(driver(), ctx.actor.tenantId)).toHaveLength(1);
    });
  });
}
