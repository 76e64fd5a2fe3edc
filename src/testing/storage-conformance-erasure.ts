/**
 * Erasure cases of the storage conformance suite (docs/erasure.md): a record written with
 * distinctive personal values through several versions is erased through the governed core on the
 * driver under test; then every read path's output (record, versions, history, audit records, raw
 * version states, the change feed, claimed webhook deliveries, an idempotency replay, and the raw
 * audit rows when the caller can read them) is serialised and searched for those values, and the
 * history keeps its shape plus one erasure record.
 */
import { workspaceAdminContext } from './storage-conformance-fixtures.ts';
import { beforeAll, expect } from 'vitest';
import { describe, it } from './storage-conformance-select.ts';
import { defineEntity } from '../entity-document/index.ts';
import { CellgateError } from '../errors.ts';
import { createGovernedService, type GovernedContext, type GovernedService } from '../governed/service.ts';
import { eraseRecord } from '../governed/service-erase.ts';
import type { StorageDriver, StoredEvent } from '../storage/types.ts';
import type { RawAuditRows } from './storage-conformance-service.ts';

type Current = () => StorageDriver;

const Patient = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Patient',
  key: 'conformance_erasure.patient',
  version: '1.0.0',
  description: 'A record with every redaction class, for the erasure cases',
  scope: 'cell-isolated',
  governance_tier: 'tier-1',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: {
    name: { type: 'string' },
    amount: { type: 'number' },
    email: { type: 'string', format: 'email', sensitive: true },
    notes: { type: 'string', optional: true, redact: 'hash' },
    bio: { type: 'string', optional: true, redact: 'length' },
    card_token: { type: 'string', optional: true, credential: true },
  },
});

const context = (): GovernedContext =>
  workspaceAdminContext(['conformance_erasure.patients.read'], { requestId: 'req-erasure', traceId: null, ip: '127.0.0.1', userAgent: 'conformance' });

/** Distinctive values, one per field and version, so a search for each can only match a leak. */
function secrets() {
  const tag = crypto.randomUUID().slice(0, 8);
  return {
    email1: `first.${tag}@erase-me.example`,
    email2: `second.${tag}@erase-me.example`,
    notes1: `NOTES-one-${tag}`,
    notes2: `NOTES-two-${tag}`,
    bio: `BIO-${tag}`,
    card: `tok_CARD_${tag}`,
    name: `Name-${tag}`,
  };
}

/** Every page of a paged history read. */
async function allPages<T>(read: (cursor?: string) => Promise<{ data: T[]; meta: { nextCursor: string | null } }>): Promise<T[]> {
  const out: T[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await read(cursor);
    out.push(...page.data);
    if (page.meta.nextCursor === null) return out;
    cursor = page.meta.nextCursor;
  }
}

/** Erasure cases, registered inside the suite's describe. */
export function erasureConformanceCases(driver: Current, rawAuditRows?: RawAuditRows): void {
  describe('erasure: no read path returns an erased value', () => {
    let service: GovernedService;
    beforeAll(async () => {
      service = createGovernedService({ entity: Patient, storage: driver(), audit: { storeSnapshots: true }, redaction: { hashSecret: 'conformance' } });
      await driver().migrate([service.model]);
    });

    /** A record written through six versions (create, updates, delete, restore) with a keyed create and pending deliveries. */
    async function history(ctx: GovernedContext, values: ReturnType<typeof secrets>) {
      const body = { name: values.name, amount: 1, email: values.email1, notes: values.notes1, bio: values.bio, cardToken: values.card };
      const key = `erase-${crypto.randomUUID()}`;
      const created = await service.create(ctx, body, { idempotencyKey: key });
      const id = created.data.id;
      await service.update(ctx, id, { expectedVersion: 1, email: values.email2, amount: 2 });
      await service.update(ctx, id, { expectedVersion: 2, patch: [{ op: 'replace', path: '/notes', value: values.notes2 }] });
      await service.delete(ctx, id, { expectedVersion: 3 });
      await service.rollback(ctx, id, { targetVersion: 3, reason: 'restore' });
      await service.update(ctx, id, { expectedVersion: 5, amount: 3 });
      return { id, body, key };
    }

    /** Everything a reader can get about the record, serialised. */
    async function everything(
      ctx: GovernedContext,
      id: string,
      replay: () => Promise<unknown>,
      claimAtMinutes = 1,
    ): Promise<{ text: string; versions: number; audit: ReturnType<typeof auditShape>; events: StoredEvent[] }> {
      const storage = driver();
      const tenantId = ctx.actor.tenantId;
      const record = await service.get(ctx, id, { includeDeleted: true });
      const versions = await allPages((cursor) => service.versions(ctx, id, { limit: 2, ...(cursor === undefined ? {} : { cursor }) }));
      const audits = await allPages((cursor) => service.history(ctx, { resourceId: id, limit: 2, ...(cursor === undefined ? {} : { cursor }) }));
      const single = await Promise.all(audits.map((audit) => service.getAudit(ctx, (audit as { id: string }).id)));
      const scope = { tenantId, workspaceId: ctx.scope!.workspaceId!, cellId: ctx.scope!.cellId! };
      const states = await Promise.all(versions.map((_, index) => storage.getVersionState(service.model, scope, id, index + 1)));
      const stored = (await storage.listAudit({ tenantId, resourceType: service.resourceType, resourceId: id, limit: 100 })).records;
      const events = await storage.events.listEvents({ tenantId, limit: 500 });
      // Claimed as a dispatcher would (a later call claims after the earlier lease ran out).
      const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
      const deliveries = await storage.events.claimDeliveries({
        now: at(claimAtMinutes),
        limit: 500,
        owner: `erasure-${crypto.randomUUID()}`,
        leaseUntil: at(claimAtMinutes + 1),
      });
      const raw = rawAuditRows === undefined ? [] : await rawAuditRows(storage, tenantId);
      const exported: unknown[] = [];
      for await (const entry of storage.exportAudit({ tenantId, from: '1970-01-01T00:00:00.000Z', to: '9999-12-31T23:59:59.999Z' })) exported.push(entry);
      const text = JSON.stringify({
        record,
        versions,
        audits,
        single,
        states,
        stored,
        events,
        exported,
        deliveries: deliveries.filter((claim) => claim.event.tenantId === tenantId),
        raw,
        replay: await replay(),
      });
      return { text, versions: versions.length, audit: auditShape(stored), events };
    }

    /** The shape of a record's audit history, oldest first: type, version and diff paths, with hashes and lengths. */
    function auditShape(records: ReadonlyArray<{ eventType: string; resourceVersion: number; diff: unknown }>) {
      return [...records].reverse().map((record) => ({
        type: record.eventType,
        version: record.resourceVersion,
        ops: Array.isArray(record.diff)
          ? (record.diff as Array<Record<string, unknown>>).map(({ op, path, valueHash, valueLength }) => ({ op, path, valueHash, valueLength }))
          : null,
      }));
    }

    it('removes every personal value from every read path and keeps the history shape plus one erasure record', async () => {
      const ctx = context();
      const values = secrets();
      const { id, body, key } = await history(ctx, values);
      // Pending webhook deliveries exist before the erasure: they read the outbox when sent.
      await driver().events.fanOut(500, (event) => (event.tenantId === ctx.actor.tenantId ? ['erasure-hook'] : []), new Date().toISOString());
      const replay = () => service.create(ctx, body, { idempotencyKey: key });
      const before = await everything(ctx, id, replay);
      for (const value of Object.values(values)) expect(before.text).toContain(value);

      const result = await eraseRecord(service, ctx, id, { reason: 'data subject request 17' });
      expect(result.fields.sort()).toEqual(['bio', 'cardToken', 'email', 'notes']);
      expect(result.record.meta.version).toBe(7);
      expect(result.rewritten.versionStates).toBe(6);

      const after = await everything(ctx, id, replay, 3);
      expect(after.text).toContain('erasure-hook');
      for (const [name, value] of Object.entries(values)) {
        if (name === 'name')
          expect(after.text).toContain(value); // not personal by the entity, not named: kept
        else expect(after.text, `${name} survived the erasure`).not.toContain(value);
      }
      // Shape: the same versions, audit records (types, versions, paths, hashes, lengths) and events, plus one of each.
      expect(after.versions).toBe(before.versions + 1);
      expect(after.audit.slice(0, -1)).toEqual(before.audit);
      expect(after.audit.at(-1)).toEqual({
        type: 'entity.erased',
        version: 7,
        ops: ['/email', '/notes', '/bio', '/cardToken'].map((path) => ({ op: 'replace', path, valueHash: undefined, valueLength: undefined })),
      });
      expect(before.audit.some((entry) => entry.ops?.some((op) => typeof op.valueHash === 'string'))).toBe(true);
      expect(after.events.map((event) => [event.type, event.version])).toEqual([
        ...before.events.map((event) => [event.type, event.version]),
        ['entity.erased', 7],
      ]);
      expect(after.events.map((event) => event.cursor).slice(0, -1)).toEqual(before.events.map((event) => event.cursor));

      const erased = await service.get(ctx, id);
      expect(erased.data).toMatchObject({ name: values.name, email: 'erased@erased.invalid', notes: null, bio: null, cardToken: null, version: 7 });
      const audit = await service.getAudit(ctx, result.auditId);
      expect(audit).toMatchObject({ eventType: 'entity.erased', reason: 'data subject request 17', actorId: ctx.actor.id, resourceVersion: 7, baseVersion: 6 });
    });

    it('erases a field named explicitly, also from audit diffs and snapshots that stored its value', async () => {
      const ctx = context();
      const values = secrets();
      const { id } = await history(ctx, values);
      await eraseRecord(service, ctx, id, { reason: 'named field', fields: ['name'] });
      const after = await everything(ctx, id, async () => null);
      expect(after.text).not.toContain(values.name);
      expect((await service.get(ctx, id)).data.name).toBe('[erased]');
    });

    it('lets no stale writer or rollback bring an erased value back', async () => {
      const ctx = context();
      const values = secrets();
      const { id } = await history(ctx, values);
      await eraseRecord(service, ctx, id, { reason: 'request' });
      const stale = await service.update(ctx, id, { expectedVersion: 6, email: values.email1 }).catch((error: unknown) => error);
      expect(stale).toBeInstanceOf(CellgateError);
      expect((stale as CellgateError).code).toBe('CONFLICT');
      const rolled = await service.rollback(ctx, id, { targetVersion: 1 });
      expect(JSON.stringify(rolled)).not.toContain(values.email1);
      expect(rolled.data).toMatchObject({ email: 'erased@erased.invalid', notes: null, amount: 1 });
      // The record stays valid: a later update passes validation.
      expect((await service.update(ctx, id, { expectedVersion: 8, amount: 9 })).data.amount).toBe(9);
    });

    it('refuses a caller without admin access, an unknown field, a missing reason and a record of another tenant', async () => {
      const ctx = context();
      const { id } = await history(ctx, secrets());
      const editor: GovernedContext = { ...ctx, actor: { ...ctx.actor, workspaces: { [ctx.scope!.workspaceId!]: ['editor'] } } };
      const code = (promise: Promise<unknown>) =>
        promise.then(
          () => 'resolved',
          (error: unknown) => (error instanceof CellgateError ? error.code : String(error)),
        );
      expect(await code(eraseRecord(service, editor, id, { reason: 'x' }))).toBe('FORBIDDEN');
      expect(await code(eraseRecord(service, ctx, id, { reason: 'x', fields: ['nope'] }))).toBe('VALIDATION_ERROR');
      expect(await code(eraseRecord(service, ctx, id, { reason: ' ' }))).toBe('VALIDATION_ERROR');
      // An admin of the same workspace id in another tenant finds nothing.
      const other = context();
      const stranger: GovernedContext = { ...other, actor: { ...other.actor, workspaces: { [ctx.scope!.workspaceId!]: ['admin'] } }, scope: ctx.scope! };
      expect(await code(eraseRecord(service, stranger, id, { reason: 'x' }))).toBe('NOT_FOUND');
      // Nothing was written by the refused calls.
      expect((await service.get(ctx, id)).meta.version).toBe(6);
    });
  });
}
