/**
 * `memoryStorage()`: the in-memory storage driver. A first-class driver for tests and demos with
 * the same behaviour as the SQL drivers: transactions are serialised and staged (a throwing `fn`
 * leaves no trace, readers outside never see uncommitted writes), the version check is a
 * compare-and-set with no await between read and write, and values are deep-copied in and out.
 */
import { CellgateError } from '../../errors.ts';
import { withinOptionalReach } from '../history-reach.ts';
import type {
  AuditPage,
  AuditQuery,
  AuditRecord,
  DomainEvent,
  EntityStorageModel,
  IdempotencyRecord,
  ListQuery,
  ListResult,
  RecordScope,
  MaintenanceReason,
  MaintenanceSession,
  StorageDriver,
  StorageSession,
  StoredRecord,
  UpgradeOperations,
  VersionStateAt,
} from '../types.ts';
import { AuditTimeIndex, exportFromIndex } from './audit-export.ts';
import { createMemoryDriftJudge } from './drift.ts';
import { memoryErasureOperations } from './erasure.ts';
import { MemoryEventStore } from './events.ts';
import { createMemoryRetention } from './retention.ts';
import { inScope, referrersIn, runListQuery } from './list.ts';
import { pageInBatches } from './list-batches.ts';
import { MemoryLog, stageLeaf, type StagedLeaf } from './log.ts';
import { Mutex } from './mutex.ts';
import { stateAt, statesAt, type VersionLookup } from './time-travel.ts';
import { diffChangesField } from '../audit-field.ts';
import { memoryUpgradeOperations } from './upgrade.ts';

const copy = <T>(value: T): T => structuredClone(value);
/** Key of a version state: (resource type, record id, version). */
export const versionKey = (resourceType: string, id: string, version: number): string => `${resourceType}\u0000${id}\u0000${version}`;
const idempotencyKey = (tenantId: string, actorId: string, key: string): string => `${tenantId}\u0000${actorId}\u0000${key}`;
const resourceKey = (tenantId: string, resourceType: string, resourceId: string): string => `${tenantId}\u0000${resourceType}\u0000${resourceId}`;

/** Everything the driver holds. A transaction stages a second instance and merges it on commit. */
export class Tables {
  readonly records = new Map<string, Map<string, StoredRecord>>();
  readonly audit: AuditRecord[] = [];
  /** Audit positions by (tenant, resourceType, resourceId), ascending, so a record's history is read without a scan. */
  readonly auditByResource = new Map<string, number[]>();
  readonly auditById = new Map<string, number>();
  /** Audit positions per tenant in time order, for exports (kept on the committed tables only). */
  readonly auditByTime: AuditTimeIndex | null;
  readonly versions = new Map<string, StoredRecord>();
  readonly idempotency = new Map<string, IdempotencyRecord>();
  /** Progress of online upgrades between majors, by name (docs/decisions/B40.md). */
  readonly upgrades = new Map<string, string>();
  /** Outbox events a transaction staged; the event store takes them on commit. */
  readonly events: DomainEvent[] = [];
  /**
   * Changes of a maintenance transaction to committed history (removals, rewrites), applied in
   * order on commit after the staged writes, so a throwing transaction leaves no trace.
   */
  readonly maintenance: Array<(base: Tables) => void> = [];
  /** Leaves of the verifiable log a transaction staged (in append order); the committed log on the base tables. */
  readonly logLeaves: StagedLeaf[] = [];
  readonly log = new MemoryLog();

  constructor(committed: boolean) {
    this.auditByTime = committed ? new AuditTimeIndex(this.audit) : null;
  }

  table(name: string): Map<string, StoredRecord> {
    let table = this.records.get(name);
    if (table === undefined) {
      table = new Map();
      this.records.set(name, table);
    }
    return table;
  }

  pushAudit(record: AuditRecord): void {
    const position = this.audit.length;
    this.audit.push(record);
    this.auditById.set(record.id, position);
    const key = resourceKey(record.tenantId, record.resourceType, record.resourceId);
    const list = this.auditByResource.get(key);
    if (list === undefined) this.auditByResource.set(key, [position]);
    else list.push(position);
    this.auditByTime?.add(position);
  }
}

// Cursor = position of the last record returned; the next page starts just below it.
function encodeCursor(position: number): string {
  return `m.${position.toString(36)}`;
}

function decodeCursor(cursor: string): number {
  const match = /^m\.([0-9a-z]{1,12})$/.exec(cursor);
  const position = match === null ? Number.NaN : Number.parseInt(match[1]!, 36);
  if (!Number.isSafeInteger(position)) {
    throw new CellgateError('VALIDATION_ERROR', 'Invalid cursor', { details: { fields: [{ path: 'cursor', message: 'Not a cursor returned by this API' }] } });
  }
  return position;
}

function auditMatches(record: AuditRecord, query: AuditQuery): boolean {
  return (
    record.tenantId === query.tenantId &&
    (query.workspaceId === undefined || record.workspaceId === query.workspaceId) &&
    (query.workspaceIds === undefined || (record.workspaceId !== null && query.workspaceIds.includes(record.workspaceId))) &&
    withinOptionalReach(query.reach, record.resourceType, record.workspaceId) &&
    (query.field === undefined || diffChangesField(record.diff, query.field)) &&
    (query.cellId === undefined || record.cellId === query.cellId) &&
    (query.resourceType === undefined || record.resourceType === query.resourceType) &&
    (query.resourceId === undefined || record.resourceId === query.resourceId) &&
    (query.changeSetId === undefined || record.changeSetId === query.changeSetId)
  );
}

/** Reads over the committed tables plus (inside a transaction) the staged writes. */
class MemorySession implements StorageSession {
  constructor(
    private readonly base: Tables,
    private readonly staged: Tables | null,
  ) {}

  /** The online upgrade's operations over this session's view (docs/decisions/B40.md). */
  get upgrade(): UpgradeOperations {
    return memoryUpgradeOperations(this.base, this.staged);
  }

  private current(model: EntityStorageModel, id: string): StoredRecord | undefined {
    return this.staged?.records.get(model.table)?.get(id) ?? this.base.records.get(model.table)?.get(id);
  }

  private get writable(): Tables {
    if (this.staged === null) throw new Error('memoryStorage: writes need a transaction');
    return this.staged;
  }

  async get(model: EntityStorageModel, scope: RecordScope, id: string): Promise<StoredRecord | null> {
    const record = this.current(model, id);
    return record !== undefined && inScope(record, scope) ? copy(record) : null;
  }

  async list(model: EntityStorageModel, query: ListQuery): Promise<ListResult> {
    const committed = this.base.records.get(model.table) ?? new Map<string, StoredRecord>();
    const staged = this.staged?.records.get(model.table);
    const merged = staged === undefined || staged.size === 0 ? committed.values() : new Map([...committed, ...staged]).values();
    const { page, total } = runListQuery(merged, query);
    if (query.maxLength !== undefined) return { ...pageInBatches(page, query.maxLength, copy), total };
    return { records: page.map(copy), total };
  }

  // Writers are serialised by the driver's mutex, so what this reads stays true until commit.
  async lockLive(model: EntityStorageModel, scope: RecordScope, id: string, _mode?: 'share' | 'update'): Promise<boolean> {
    const record = this.current(model, id);
    return record !== undefined && record.deletedAt === null && inScope(record, scope);
  }

  async listReferrers(model: EntityStorageModel, field: string, within: RecordScope, id: string, limit: number): Promise<StoredRecord[]> {
    const committed = this.base.records.get(model.table) ?? new Map<string, StoredRecord>();
    const staged = this.staged?.records.get(model.table);
    const merged = staged === undefined || staged.size === 0 ? committed : new Map([...committed, ...staged]);
    return referrersIn(merged.values(), field, within, id, limit).map(copy);
  }

  async insert(model: EntityStorageModel, record: StoredRecord): Promise<void> {
    if (this.current(model, record.id) !== undefined) throw new Error(`memoryStorage: duplicate id in ${model.table}`);
    this.writable.table(model.table).set(record.id, copy(record));
  }

  async update(model: EntityStorageModel, record: StoredRecord, expectedVersion: number): Promise<StoredRecord | null> {
    // Compare-and-set: read, compare and write happen synchronously, with no await in between.
    const current = this.current(model, record.id);
    if (current === undefined || current.version !== expectedVersion || !inScope(current, record)) return null;
    const stored = copy(record);
    this.writable.table(model.table).set(record.id, stored);
    return copy(stored);
  }

  async appendAudit(record: AuditRecord): Promise<void> {
    this.writable.logLeaves.push(stageLeaf(record));
    // Read back as the SQL drivers read it: a record written without a change set has null.
    this.writable.pushAudit(copy({ ...record, changeSetId: record.changeSetId ?? null }));
  }

  async listAudit(query: AuditQuery): Promise<AuditPage> {
    const start = query.cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(query.cursor) - 1;
    const limit = Math.max(1, query.limit);
    const records: AuditRecord[] = [];
    const cursors: string[] = [];
    let length = 0;
    let more = false;
    for (const position of this.candidates(query, start)) {
      const record = this.auditAt(position);
      if (record === undefined || !auditMatches(record, query)) continue;
      // A page ends at `limit` records or before they pass `maxLength` characters of JSON (at least one).
      length += query.maxLength === undefined ? 0 : JSON.stringify(record).length;
      if (records.length === limit || (query.maxLength !== undefined && length > query.maxLength && records.length > 0)) {
        more = true;
        break;
      }
      records.push(copy(record));
      cursors.push(encodeCursor(position));
    }
    return { records, nextCursor: more ? cursors[cursors.length - 1]! : null, cursors };
  }

  /** The audit record at a position of the committed list followed by the staged one. */
  private auditAt(position: number): AuditRecord | undefined {
    const baseCount = this.base.audit.length;
    return position < baseCount ? this.base.audit[position] : this.staged?.audit[position - baseCount];
  }

  /** Audit positions at or below `start`, newest first: through the per-record index when the query names one. */
  private *candidates(query: AuditQuery, start: number): Generator<number> {
    const baseCount = this.base.audit.length;
    if (query.resourceType !== undefined && query.resourceId !== undefined) {
      const key = resourceKey(query.tenantId, query.resourceType, query.resourceId);
      const staged = (this.staged?.auditByResource.get(key) ?? []).map((position) => position + baseCount);
      const committed = this.base.auditByResource.get(key) ?? [];
      for (let index = staged.length - 1; index >= 0; index -= 1) if (staged[index]! <= start) yield staged[index]!;
      let high = committed.length - 1;
      // Binary search for the first position at or below `start`, so deep pages stay cheap.
      let low = 0;
      let found = -1;
      while (low <= high) {
        const mid = (low + high) >> 1;
        if (committed[mid]! <= start) {
          found = mid;
          low = mid + 1;
        } else high = mid - 1;
      }
      for (let index = found; index >= 0; index -= 1) yield committed[index]!;
      return;
    }
    const total = baseCount + (this.staged?.audit.length ?? 0);
    for (let position = Math.min(start, total - 1); position >= 0; position -= 1) yield position;
  }

  async getAudit(tenantId: string, auditId: string): Promise<AuditRecord | null> {
    const stagedPosition = this.staged?.auditById.get(auditId);
    const record = stagedPosition !== undefined ? this.staged?.audit[stagedPosition] : this.base.audit[this.base.auditById.get(auditId) ?? -1];
    return record !== undefined && record.tenantId === tenantId ? copy(record) : null;
  }

  async putVersionState(model: EntityStorageModel, state: StoredRecord): Promise<void> {
    this.writable.versions.set(versionKey(model.resourceType, state.id, state.version), copy(state));
  }

  async getVersionState(model: EntityStorageModel, scope: RecordScope, id: string, version: number): Promise<StoredRecord | null> {
    const key = versionKey(model.resourceType, id, version);
    const state = this.staged?.versions.get(key) ?? this.base.versions.get(key);
    return state !== undefined && inScope(state, scope) ? copy(state) : null;
  }

  async getVersionStateAt(model: EntityStorageModel, scope: RecordScope, id: string, at: string): Promise<StoredRecord | null> {
    const state = stateAt(this.current(model, id), this.versionLookup(model, id), scope, at);
    return state === null ? null : copy(state);
  }

  async listVersionStatesAt(model: EntityStorageModel, scope: RecordScope, at: string, after: string | null, limit: number): Promise<VersionStateAt[]> {
    const committed = this.base.records.get(model.table) ?? new Map<string, StoredRecord>();
    const staged = this.staged?.records.get(model.table);
    const records = staged === undefined || staged.size === 0 ? committed.values() : new Map([...committed, ...staged]).values();
    return statesAt(records, (id) => this.versionLookup(model, id), scope, at, after, limit).map(({ id, state }) => ({
      id,
      state: state === null ? null : copy(state),
    }));
  }

  /** The stored states of one record by version, staged ones first. */
  private versionLookup(model: EntityStorageModel, id: string): VersionLookup {
    return (version) => {
      const key = versionKey(model.resourceType, id, version);
      return this.staged?.versions.get(key) ?? this.base.versions.get(key);
    };
  }

  async getIdempotency(tenantId: string, actorId: string, key: string): Promise<IdempotencyRecord | null> {
    const id = idempotencyKey(tenantId, actorId, key);
    const record = this.staged?.idempotency.get(id) ?? this.base.idempotency.get(id);
    return record === undefined ? null : copy(record);
  }

  async putIdempotency(record: IdempotencyRecord): Promise<boolean> {
    const id = idempotencyKey(record.tenantId, record.actorId, record.key);
    const existing = this.staged?.idempotency.get(id) ?? this.base.idempotency.get(id);
    // An expired record is taken over, as the SQL drivers do; staging the new one replaces it on commit.
    if (existing !== undefined && !(existing.expiresAt !== undefined && existing.expiresAt <= record.createdAt)) return false;
    this.writable.idempotency.set(id, copy(record));
    return true;
  }

  async appendEvent(event: DomainEvent): Promise<void> {
    this.writable.events.push(copy(event));
  }
}

function commit(base: Tables, staged: Tables, events: MemoryEventStore): void {
  events.commit(staged.events);
  for (const [name, records] of staged.records) for (const [id, record] of records) base.table(name).set(id, record);
  for (const record of staged.audit) base.pushAudit(record);
  base.log.commit(staged.logLeaves);
  for (const [key, state] of staged.versions) base.versions.set(key, state);
  for (const [key, record] of staged.idempotency) base.idempotency.set(key, record);
  for (const [key, value] of staged.upgrades) base.upgrades.set(key, value);
  for (const change of staged.maintenance) change(base);
}

/** Options of {@link memoryStorage}. None yet; reserved. */
export type MemoryStorageOptions = Record<string, never>;

/**
 * Creates an in-memory storage driver (not durable, one process). Ideal for unit tests of code
 * that uses governed resources: create one per test for isolation.
 *
 * Transactions run one at a time. Inside `transaction(fn)`, use the session `fn` receives: a write
 * through the driver itself waits for the open transaction to finish, so from inside it would wait
 * forever.
 *
 * @example memoryStorage
 * import { readFileSync } from 'node:fs';
 * import { createGovernedApi, memoryStorage } from 'cellgate';
 *
 * // One per test: nothing is shared between tests, nothing outlives the process.
 * const storage = memoryStorage();
 * export const api = createGovernedApi({
 *   storage,
 *   auth: { secret: 'a-test-secret-of-32-bytes-or-more!' },
 *   resources: [JSON.parse(readFileSync('./task.entity.json', 'utf8'))],
 * });
 * await api.migrate();
 */
export function memoryStorage(options: MemoryStorageOptions = {}): StorageDriver {
  void options;
  const base = new Tables(true);
  const mutex = new Mutex();
  const reader = new MemorySession(base, null);
  const events = new MemoryEventStore();
  const judgeDrift = createMemoryDriftJudge((table) => base.records.get(table));
  let closed = false;

  // One transaction at a time: stage its writes, merge them when `fn` resolves.
  const staging = <S, T>(open: (staged: Tables) => S, fn: (session: S) => Promise<T>): Promise<T> =>
    mutex.run(async () => {
      if (closed) throw new Error('memoryStorage: closed');
      const staged = new Tables(false);
      const result = await fn(open(staged));
      commit(base, staged, events);
      return result;
    });
  const transaction = <T>(fn: (session: StorageSession) => Promise<T>): Promise<T> => staging((staged) => new MemorySession(base, staged), fn);

  const maintenance = <T>(reason: MaintenanceReason, fn: (session: MaintenanceSession) => Promise<T>): Promise<T> =>
    staging((staged): MaintenanceSession => {
      const retention = createMemoryRetention({ base, events, stage: (change) => staged.maintenance.push(change), versionKey, resourceKey });
      return Object.assign(new MemorySession(base, staged), memoryErasureOperations(base, staged, events), retention, { reason });
    }, fn);

  return {
    name: 'memory',
    capabilities: { durable: false, multiProcess: false, appendOnlyAuditEnforced: true },
    async migrate(models) {
      // Under the write lock: a backfill replaces records, which no transaction may commit over.
      await mutex.run(() => judgeDrift(models));
      for (const model of models) base.table(model.table);
    },
    transaction,
    maintenance,
    async close() {
      closed = true;
    },
    get: (model, scope, id) => reader.get(model, scope, id),
    list: (model, query) => reader.list(model, query),
    lockLive: (model, scope, id, mode) => reader.lockLive(model, scope, id, mode),
    listReferrers: (model, field, within, id, limit) => reader.listReferrers(model, field, within, id, limit),
    listAudit: (query) => reader.listAudit(query),
    getAudit: (tenantId, auditId) => reader.getAudit(tenantId, auditId),
    getVersionState: (model, scope, id, version) => reader.getVersionState(model, scope, id, version),
    getVersionStateAt: (model, scope, id, at) => reader.getVersionStateAt(model, scope, id, at),
    listVersionStatesAt: (model, scope, at, after, limit) => reader.listVersionStatesAt(model, scope, at, after, limit),
    getIdempotency: (tenantId, actorId, key) => reader.getIdempotency(tenantId, actorId, key),
    // Writes outside a transaction are one-statement transactions, so they queue behind open ones.
    insert: (model, record) => transaction((session) => session.insert(model, record)),
    update: (model, record, expectedVersion) => transaction((session) => session.update(model, record, expectedVersion)),
    appendAudit: (record) => transaction((session) => session.appendAudit(record)),
    putVersionState: (model, state) => transaction((session) => session.putVersionState(model, state)),
    putIdempotency: (record) => transaction((session) => session.putIdempotency(record)),
    appendEvent: (event) => transaction((session) => session.appendEvent(event)),
    events,
    log: base.log.store(
      (tenantId, auditId) => {
        const record = base.audit[base.auditById.get(auditId) ?? -1];
        return record !== undefined && record.tenantId === tenantId ? copy(record) : null;
      },
      (tenantId) => base.audit.reduce((count, record) => (record?.tenantId === tenantId ? count + 1 : count), 0),
    ),
    exportAudit: (query) => exportFromIndex(base.auditByTime!, query),
    sweepIdempotency: (now, limit) =>
      mutex.run(async () => {
        // Map order is insertion order, so records written long ago come first. The scan is
        // capped too, so one call never walks a large map of live keys.
        let deleted = 0;
        let scanned = 0;
        for (const [id, record] of base.idempotency) {
          if (deleted >= limit || ++scanned > limit * 10) break;
          if (record.expiresAt !== undefined && record.expiresAt <= now) {
            base.idempotency.delete(id);
            deleted++;
          }
        }
        return deleted;
      }),
  };
}
