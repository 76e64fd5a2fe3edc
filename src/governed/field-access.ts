/**
 * Field-level access (docs/field-access.md, docs/decisions/B34.md): the one policy that decides,
 * per reader and field, whether the reader may view the field and whether it may edit it. A field
 * whose descriptor carries `permissions: { view, edit }` is viewed by a holder of a role of either
 * list and edited by a holder of a role of `edit` (roles where the record lives: tenant-wide roles
 * plus that workspace's); a field without `permissions` follows the entity's own permissions, which
 * the operation already checked.
 *
 * Every surface that shows field values asks this module: record and list answers, versions,
 * audit records (diff operations and snapshots: a hidden field's path, hash and length go with its
 * value), the export, the change feed, webhook payloads and the OpenAPI document served to a
 * caller. It is a second layer on top of audit redaction: redaction decides what is stored, the
 * mask decides what one reader sees of it.
 *
 * Cost: a mask is computed once per (entity, set of relevant roles) and kept in a bounded LRU
 * ({@link FIELD_ACCESS_CACHE_SIZE}); an entity whose fields declare no permissions answers a
 * shared open mask without looking at the reader at all.
 */
import { camelToSnake, snakeToCamel, isBaseField, type EntityDefinitionDocument } from '../entity-document/index.ts';
import { CellgateError } from '../errors.ts';
import { FIELD_ACCESS_CACHE_SIZE } from '../limits.ts';
import type { DomainEvent } from '../storage/types.ts';
import { rolesIn } from './access.ts';
import type { Actor, AuditView, EntityData, RecordView } from './types.ts';

/** What one reader may do with the fields of one entity, where a record lives. */
export interface FieldMask {
  /** camelCase names of the fields the reader may not view, in document order (`meta.hiddenFields`). */
  readonly hidden: readonly string[];
  /** The same names, for lookups. */
  readonly hiddenSet: ReadonlySet<string>;
  /** camelCase names of the fields the reader may not write: the hidden ones and those it may only view. */
  readonly locked: ReadonlySet<string>;
  /**
   * The entity as this reader's lists see it: hidden fields absent from `fields` and from the data
   * block (filters, search, sorting), so a list request naming one is refused exactly as if the
   * field did not exist. The entity itself when nothing is hidden.
   */
  readonly listEntity: EntityDefinitionDocument;
}

/** A field with its own permissions, compiled. */
interface Guarded {
  camel: string;
  viewers: ReadonlySet<string>;
  editors: ReadonlySet<string>;
}

/** A reader who may do everything the entity's own permissions allow: nothing hidden, nothing locked. */
function openMask(entity: EntityDefinitionDocument): FieldMask {
  return { hidden: [], hiddenSet: new Set(), locked: new Set(), listEntity: entity };
}

const without = (names: readonly string[] | undefined, hidden: ReadonlySet<string>): string[] => (names ?? []).filter((name) => !hidden.has(name));

/** The entity with the snake_case fields `hidden` taken out of `fields` and the data block. */
function entityWithout(entity: EntityDefinitionDocument, hidden: ReadonlySet<string>): EntityDefinitionDocument {
  const fields = Object.fromEntries(Object.entries(entity.fields).filter(([name]) => !hidden.has(name)));
  const data = entity.data;
  if (data === undefined) return Object.freeze({ ...entity, fields });
  const { filtering, searching, sorting } = data;
  const fallback = sorting?.default;
  return Object.freeze({
    ...entity,
    fields,
    data: {
      ...(filtering === undefined
        ? {}
        : {
            filtering: {
              allowedFields: without(filtering.allowedFields, hidden),
              operators: Object.fromEntries(Object.entries(filtering.operators).filter(([name]) => !hidden.has(name))),
            },
          }),
      ...(searching === undefined ? {} : { searching: { fields: without(searching.fields, hidden) } }),
      ...(sorting === undefined
        ? {}
        : {
            sorting: {
              allowedFields: without(sorting.allowedFields, hidden),
              ...(fallback === undefined || hidden.has(fallback.field) ? {} : { default: fallback }),
            },
          }),
    },
  });
}

/** The field-access policy of one entity, built once with its service. */
export class FieldAccess {
  /** Whether any field declares its own permissions; when not, every mask is the open one. */
  readonly declared: boolean;
  private readonly guarded: readonly Guarded[];
  /** Roles named by any guarded field: only they can change a mask, so only they key the cache. */
  private readonly relevant: ReadonlySet<string>;
  private readonly open: FieldMask;
  private readonly cache = new Map<string, FieldMask>();

  constructor(private readonly entity: EntityDefinitionDocument) {
    const guarded: Guarded[] = [];
    for (const [name, descriptor] of Object.entries(entity.fields)) {
      const permissions = descriptor.permissions;
      if (permissions === undefined || isBaseField(name)) continue;
      guarded.push({ camel: snakeToCamel(name), viewers: new Set([...permissions.view, ...permissions.edit]), editors: new Set(permissions.edit) });
    }
    this.guarded = guarded;
    this.declared = guarded.length > 0;
    this.relevant = new Set(guarded.flatMap((field) => [...field.viewers]));
    this.open = openMask(entity);
  }

  /** The mask of `actor` on a record of this entity in `workspaceId` (null: system-global or tenant level). */
  maskFor(actor: Pick<Actor, 'roles' | 'workspaces'>, workspaceId: string | null): FieldMask {
    if (!this.declared) return this.open;
    return this.maskOfRoles(rolesIn(actor as Actor, workspaceId));
  }

  /** The mask of a reader holding `roles` where the record lives. */
  maskOfRoles(roles: ReadonlySet<string>): FieldMask {
    if (!this.declared) return this.open;
    const held: string[] = [];
    for (const role of roles) if (this.relevant.has(role)) held.push(role);
    const key = held.sort().join('\u0000');
    let mask = this.cache.get(key);
    if (mask !== undefined) {
      // Least recently used goes first: re-inserting moves the key to the end of the Map's order.
      this.cache.delete(key);
      this.cache.set(key, mask);
      return mask;
    }
    mask = this.compute(new Set(held));
    if (this.cache.size >= FIELD_ACCESS_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, mask);
    return mask;
  }

  private compute(roles: ReadonlySet<string>): FieldMask {
    const meets = (list: ReadonlySet<string>): boolean => [...roles].some((role) => list.has(role));
    const hidden: string[] = [];
    const locked = new Set<string>();
    for (const field of this.guarded) {
      if (!meets(field.viewers)) hidden.push(field.camel);
      if (!meets(field.editors)) locked.add(field.camel);
    }
    if (hidden.length === 0 && locked.size === 0) return this.open;
    const hiddenSet = new Set(hidden);
    const listEntity = hidden.length === 0 ? this.entity : entityWithout(this.entity, new Set(hidden.map(camelToSnake)));
    return { hidden, hiddenSet, locked, listEntity };
  }
}

/** The field-access policies of the resources of one API, by resource type (for tenant-wide reads). */
export class FieldAccessDirectory {
  private readonly byType = new Map<string, FieldAccess>();

  /** Adds the policy of one resource type. */
  add(resourceType: string, access: FieldAccess): void {
    this.byType.set(resourceType, access);
  }

  /** The policy of a resource type, if this API mounts it. */
  get(resourceType: string): FieldAccess | undefined {
    return this.byType.get(resourceType);
  }

  /** The mask of `actor` on a record of `resourceType` in `workspaceId`; an unmounted type has no fields to hide. */
  maskFor(actor: Pick<Actor, 'roles' | 'workspaces'>, resourceType: string, workspaceId: string | null): FieldMask | undefined {
    return this.byType.get(resourceType)?.maskFor(actor, workspaceId);
  }
}

/** A wire record without the fields `mask` hides. */
export function maskData<D extends EntityData>(data: D, mask: FieldMask): D {
  if (mask.hidden.length === 0) return data;
  const copy = { ...data } as Record<string, unknown>;
  for (const name of mask.hidden) delete copy[name];
  return copy as D;
}

/** `{ data, meta }` as the reader may see it: hidden fields absent, listed in `meta.hiddenFields`. */
export function maskView(view: RecordView, mask: FieldMask): RecordView {
  if (mask.hidden.length === 0) return view;
  return { data: maskData(view.data, mask), meta: { ...view.meta, hiddenFields: [...mask.hidden] } };
}

/** The top-level member a JSON Pointer names (unescaped), `''` for the root. */
export function topMember(pointer: unknown): string {
  if (typeof pointer !== 'string') return '';
  const end = pointer.indexOf('/', 1);
  return (end === -1 ? pointer.slice(1) : pointer.slice(1, end)).replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * A stored snapshot (audit, version, event) without the hidden members: their value, hash form
 * and length form go with the name.
 */
export function maskSnapshot<S>(snapshot: S, mask: FieldMask): S {
  if (mask.hidden.length === 0 || snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot)) return snapshot;
  const copy = { ...(snapshot as Record<string, unknown>) };
  for (const name of mask.hidden) delete copy[name];
  return copy as S;
}

/** A stored diff (RFC 6902 operations, possibly redacted) without the operations on hidden fields. */
export function maskDiff<D>(diff: D, mask: FieldMask): D {
  if (mask.hidden.length === 0 || !Array.isArray(diff)) return diff;
  return diff.filter((operation: { path?: unknown; from?: unknown }) => {
    return !mask.hiddenSet.has(topMember(operation?.path)) && !mask.hiddenSet.has(topMember(operation?.from));
  }) as D;
}

/** An audit record as the reader may see it. */
export function maskAudit(record: AuditView, mask: FieldMask | undefined): AuditView {
  if (mask === undefined || mask.hidden.length === 0) return record;
  return { ...record, diff: maskDiff(record.diff, mask), snapshot: maskSnapshot(record.snapshot, mask) };
}

/** A domain event as the reader may see it (the change feed, webhooks, a principal's `onEvent`). */
export function maskEvent<E extends DomainEvent>(event: E, mask: FieldMask | undefined): E {
  if (mask === undefined || mask.hidden.length === 0) return event;
  return { ...event, change: { ...event.change, diff: maskDiff(event.change.diff, mask), snapshot: maskSnapshot(event.change.snapshot, mask) } };
}

/**
 * 403 `FORBIDDEN` naming each field of `names` (camelCase, in the order given) the reader may
 * not write. Checked before a value is looked at, so the answer is the same whatever was sent.
 */
export function checkWritable(mask: FieldMask, names: Iterable<string>): void {
  if (mask.locked.size === 0) return;
  const refused: string[] = [];
  for (const name of names) if (mask.locked.has(name) && !refused.includes(name)) refused.push(name);
  if (refused.length === 0) return;
  throw new CellgateError('FORBIDDEN', `You may not edit ${refused.length === 1 ? 'the field' : 'the fields'} ${refused.join(', ')}.`, {
    details: { fields: refused.map((path) => ({ path, message: 'Your roles do not grant edit on this field' })) },
  });
}

/**
 * 403 for a JSON Patch touching a field the reader may not write: `add`, `remove`, `replace`,
 * `move` (both ends) and `copy` need edit on the field they change; `test` and the source of
 * `copy` only read, and are refused for a hidden field alone (a `test` would otherwise be an
 * oracle of its value).
 */
export function checkPatchWritable(mask: FieldMask, operations: readonly { op: string; path: string; from?: string | undefined }[]): void {
  if (mask.locked.size === 0) return;
  const names: string[] = [];
  for (const operation of operations) {
    const target = topMember(operation.path);
    if (operation.op !== 'test' || mask.hiddenSet.has(target)) names.push(target);
    if (operation.from !== undefined) {
      const source = topMember(operation.from);
      if (operation.op === 'move' || mask.hiddenSet.has(source)) names.push(source);
    }
  }
  checkWritable(mask, names);
}
