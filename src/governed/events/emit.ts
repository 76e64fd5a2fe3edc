/**
 * Event emission of the governed write path: one domain event per committed mutation of a tier-1
 * or tier-2 entity, appended to the outbox in the writer's transaction, and handed to the
 * in-process `onEvent` subscriber once that transaction has committed.
 */
import type { AuditRecord, DomainEvent, DomainEventType, StorageDriver, StorageSession, StoredRecord } from '../../storage/types.ts';
import type { GovernedLogger } from '../metrics.ts';
import { wakeReaders } from './wake.ts';

/**
 * The in-process subscriber: called once per committed event, after the commit (never for a
 * transaction that rolled back). It may be async; what it throws or rejects is logged and never
 * fails the request that wrote the event. For delivery that survives a crash, read the change
 * feed or use webhooks: `onEvent` is lost if the process dies right after the commit.
 */
export type EventSubscriber = (event: DomainEvent) => void | Promise<void>;

const EVENT_TYPES: ReadonlySet<string> = new Set<DomainEventType>([
  'entity.created',
  'entity.updated',
  'entity.deleted',
  'entity.restored',
  'entity.rollback',
  'entity.erased',
  'entity.purged',
]);

/**
 * The event of an audit record, or null for audit types that are not domain events. The change is
 * copied from the audit record as written, so the event holds exactly what the audit stores:
 * redacted values stay redacted.
 */
export function eventFromAudit(audit: AuditRecord): DomainEvent | null {
  if (!EVENT_TYPES.has(audit.eventType)) return null;
  return {
    id: crypto.randomUUID(),
    type: audit.eventType as DomainEventType,
    resourceType: audit.resourceType,
    resourceId: audit.resourceId,
    tenantId: audit.tenantId,
    workspaceId: audit.workspaceId,
    cellId: audit.cellId,
    version: audit.resourceVersion,
    baseVersion: audit.baseVersion,
    occurredAt: audit.occurredAt,
    actor: { id: audit.actorId, type: audit.actorType },
    requestId: audit.requestId,
    traceId: audit.traceId,
    auditId: audit.id,
    changeSetId: audit.changeSetId ?? null,
    change: {
      kind: audit.changeKind,
      diff: structuredClone(audit.diff ?? null),
      snapshot: structuredClone(audit.snapshot ?? null),
      redactionApplied: audit.redactionApplied,
    },
  };
}

/**
 * Logs the failure of a hook called after a commit with `event` (`onEvent`, `afterCommit`): one
 * warn entry without field values to the logger, else one line to stderr. Never throws.
 */
export function reportHookFailure(logger: GovernedLogger | undefined, name: string, event: DomainEvent, error: unknown): void {
  const entry = {
    level: 'warn' as const,
    event: name,
    tenantId: event.tenantId,
    workspaceId: event.workspaceId,
    cellId: event.cellId,
    resourceType: event.resourceType,
    resourceId: event.resourceId,
    version: event.version,
    actorId: event.actor.id,
    requestId: event.requestId,
    traceId: event.traceId,
  };
  if (logger) logger(entry);
  else console.error(`cellgate: ${name}`, { ...entry, error: error instanceof Error ? error.message : String(error) });
}

/** What the service needs: append in the transaction, publish after the commit. */
export interface EventPublisher {
  /** Appends the event of `audit` in the open transaction and resolves it (null on tier-3: nothing appended). */
  append(session: StorageSession, audit: AuditRecord, record: StoredRecord): Promise<DomainEvent | null>;
  /** Called after the commit with the record the transaction wrote: hands its event to `onEvent`. */
  published(record: StoredRecord): void;
}

/** Options of {@link createEventPublisher}. */
export interface EventPublisherOptions {
  /** The storage written to: its waiting feed readers are woken after each commit with an event. */
  storage: StorageDriver;
  tier: 'tier-1' | 'tier-2' | 'tier-3';
  onEvent?: EventSubscriber | undefined;
  logger?: GovernedLogger | undefined;
}

/** Builds the publisher of one governed service. */
export function createEventPublisher(options: EventPublisherOptions): EventPublisher {
  const { onEvent, logger } = options;
  const emits = options.tier !== 'tier-3';
  // The event a transaction appended, keyed by the record object it wrote: found again after the
  // commit, and dropped with the object when the transaction rolled back.
  const pending = new WeakMap<StoredRecord, DomainEvent>();

  const failed = (event: DomainEvent, error: unknown): void => reportHookFailure(logger, 'event.subscriber_failed', event, error);

  return {
    async append(session, audit, record) {
      if (!emits) return null;
      const event = eventFromAudit(audit);
      if (event === null) return null;
      await session.appendEvent(event);
      pending.set(record, event);
      return event;
    },
    published(record) {
      const event = pending.get(record);
      if (event === undefined) return;
      pending.delete(record);
      wakeReaders(options.storage, event.tenantId);
      if (onEvent === undefined) return;
      try {
        const result = onEvent(structuredClone(event));
        if (result instanceof Promise) result.catch((error: unknown) => failed(event, error));
      } catch (error) {
        failed(event, error);
      }
    },
  };
}
