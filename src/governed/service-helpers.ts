/** Small request checks of the governed service: scope, ids, version carriers, history paging. */
import type { EntityDefinitionDocument } from '../contract/entity-document/index.ts';
import { CellgateError, validationError, type FieldIssue } from '../errors.ts';
import { valueNestingDepth } from '../http/json.ts';
import { MAX_JSON_DEPTH, MAX_REPORTED_ISSUES } from '../limits.ts';
import type { RecordScope, StoredRecord } from '../storage/types.ts';
import { hasUnstorableText, isUuid } from './codec.ts';
import type { ConcurrencyOptions, GovernedContext, HistoryParams } from './types.ts';

/**
 * Refuses (400 `VALIDATION_ERROR`) a body nested deeper than {@link MAX_JSON_DEPTH}. HTTP bodies are
 * already refused at parse time; this covers programmatic calls (`service.create(ctx, value)`),
 * so nothing recursive after it (canonical JSON, patches, diffs) sees an unbounded depth.
 */
export function checkBodyDepth(input: unknown): void {
  if (valueNestingDepth(input) > MAX_JSON_DEPTH) {
    throw validationError(`The body is nested deeper than ${MAX_JSON_DEPTH} levels`, [{ path: 'root', message: `Must not be nested deeper than ${MAX_JSON_DEPTH} levels` }]);
  }
}

/**
 * The 400 `VALIDATION_ERROR` of a record with bad fields, listing the first
 * {@link MAX_REPORTED_ISSUES} issues and counting the rest in `details.fieldsOmitted`: a body with
 * a hundred thousand unknown members must not get an answer several times its own size.
 */
export function invalidRecord(message: string, issues: readonly FieldIssue[]): CellgateError {
  if (issues.length <= MAX_REPORTED_ISSUES) return validationError(message, [...issues]);
  return new CellgateError('VALIDATION_ERROR', message, { details: { fields: issues.slice(0, MAX_REPORTED_ISSUES), fieldsOmitted: issues.length - MAX_REPORTED_ISSUES } });
}

/** Default and maximum page size of history reads. */
export const HISTORY_LIMIT = { default: 20, max: 100 } as const;

/**
 * A record or audit id as stored (lower-case UUID). Ids are UUIDs (SEED.md); anything else names
 * no record, so it is 404 without touching storage.
 */
export function storedId(id: string, what = 'Record'): string {
  if (typeof id !== 'string' || !isUuid(id)) throw new CellgateError('NOT_FOUND', `${what} not found`);
  return id.toLowerCase();
}

/** The record scope of a request: tenant from the actor, workspace and cell from the path by entity scope. */
export function recordScope(scope: EntityDefinitionDocument['scope'], context: GovernedContext): RecordScope {
  const tenantId = context.actor.tenantId;
  if (scope === 'system-global') return { tenantId, workspaceId: null, cellId: null };
  const workspaceId = context.scope?.workspaceId;
  // A workspace or cell id that is not a UUID names nothing in this tenant: 404, like another tenant's.
  if (workspaceId === undefined || !isUuid(workspaceId)) throw new CellgateError('NOT_FOUND', 'Workspace not found');
  if (scope === 'workspace-shared') return { tenantId, workspaceId: workspaceId.toLowerCase(), cellId: null };
  const cellId = context.scope?.cellId;
  if (cellId === undefined || !isUuid(cellId)) throw new CellgateError('NOT_FOUND', 'Cell not found');
  return { tenantId, workspaceId: workspaceId.toLowerCase(), cellId: cellId.toLowerCase() };
}

/** An optional positive integer member of a body; 400 naming it when present and wrong. */
export function optionalInteger(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw validationError(`${name} must be a positive integer`, [{ path: name, message: 'Expected a positive integer' }]);
  return value as number;
}

/**
 * The expected version from the body (or `options.expectedVersion`) and the body without it.
 * With `required`, one of body, `expectedVersion` option or `ifMatch` must be present (DECISIONS B4).
 */
export function expectedVersionOf(body: Record<string, unknown>, options: ConcurrencyOptions, required: boolean): { expectedVersion: number | undefined; rest: Record<string, unknown> } {
  const { expectedVersion: fromBody, ...rest } = body;
  void fromBody;
  const expectedVersion = optionalInteger(body, 'expectedVersion') ?? optionalInteger({ expectedVersion: options.expectedVersion }, 'expectedVersion');
  if (options.ifMatch !== undefined) optionalInteger({ 'If-Match': options.ifMatch }, 'If-Match');
  if (required && expectedVersion === undefined && options.ifMatch === undefined) {
    throw validationError('expectedVersion is required', [{ path: 'expectedVersion', message: 'Required (or send If-Match)' }]);
  }
  return { expectedVersion, rest };
}

/** Throws the conflict of a stale version: 412 for If-Match, 409 otherwise. */
export function checkVersion(
  current: StoredRecord,
  options: ConcurrencyOptions,
  expectedVersion: number | undefined,
  conflict: (current: StoredRecord, expected: number, carrier: 'body' | 'if-match') => CellgateError,
): void {
  if (options.ifMatch !== undefined && current.version !== options.ifMatch) throw conflict(current, options.ifMatch, 'if-match');
  if (expectedVersion !== undefined && current.version !== expectedVersion) throw conflict(current, expectedVersion, 'body');
}

/** History paging: limit 1..100 (default 20), optional cursor. */
export function readHistoryParams(params: HistoryParams): { limit: number; cursor: string | undefined } {
  const limit = params.limit ?? HISTORY_LIMIT.default;
  if (!Number.isSafeInteger(limit) || limit < 1) throw validationError('Invalid limit', [{ path: 'limit', message: 'Must be an integer of at least 1' }]);
  if (params.cursor !== undefined && (typeof params.cursor !== 'string' || params.cursor.length > 200)) throw validationError('Invalid cursor', [{ path: 'cursor', message: 'Not a cursor returned by this API' }]);
  return { limit: Math.min(limit, HISTORY_LIMIT.max), cursor: params.cursor === '' ? undefined : params.cursor };
}

const ROLLBACK_MEMBERS = new Set(['targetVersion', 'expectedVersion', 'reason', 'mode']);

/**
 * A rollback body `{ targetVersion, expectedVersion?, reason?, mode? }` (SEED.md operations and its
 * variant form); 400 naming each bad member.
 */
export function parseRollbackBody(body: Record<string, unknown>, options: ConcurrencyOptions): { targetVersion: number; expectedVersion: number | undefined; reason: string | null } {
  const targetVersion = optionalInteger(body, 'targetVersion');
  if (targetVersion === undefined) throw validationError('targetVersion is required', [{ path: 'targetVersion', message: 'Required' }]);
  const { expectedVersion } = expectedVersionOf(body, options, false);
  const { reason, mode } = body;
  if (reason !== undefined && reason !== null && (typeof reason !== 'string' || reason.length > 1000 || hasUnstorableText(reason))) throw validationError('Invalid reason', [{ path: 'reason', message: 'Expected a string of at most 1000 characters' }]);
  if (mode !== undefined && mode !== 'revert-by-new-version') throw validationError('Invalid mode', [{ path: 'mode', message: 'Must be revert-by-new-version' }]);
  const unknown = Object.keys(body).filter((name) => !ROLLBACK_MEMBERS.has(name));
  if (unknown.length > 0) throw validationError('Unknown rollback members', unknown.map((path) => ({ path, message: 'Unknown field' })));
  return { targetVersion, expectedVersion, reason: typeof reason === 'string' ? reason : null };
}
