/**
 * Relations between the entities of one API (docs/entities.md#relations, docs/decisions/B29.md):
 * each `references` of a field is resolved at start-up to the served entity it names, checked
 * against the two entities' scopes, and turned into write checks of both entities: the
 * referencing one checks its targets on every write, the referenced one answers its deletes by
 * `on_delete`.
 */
import { snakeToCamel, type OnDeleteAction } from '../../entity-document/index.ts';
import { ConfigurationError } from '../../errors.ts';
import type { EntityScope, RecordScope } from '../../storage/types.ts';
import type { ServiceContext } from '../service-context.ts';
import { referenceCheck } from './reference-check.ts';
import { onDeleteCheck } from './on-delete.ts';

/** A reference one entity's field makes to another entity (or to itself). */
export interface EntityReference {
  /** The referencing entity. */
  readonly source: ServiceContext;
  /** The field, snake_case as stored. */
  readonly field: string;
  /** The field as the wire names it (camelCase): the path of a refusal. */
  readonly path: string;
  /** The referenced entity. */
  readonly target: ServiceContext;
  readonly onDelete: OnDeleteAction;
}

// The resolved outgoing references of each linked entity, for reads that follow them (`include`).
const outgoingOf = new WeakMap<ServiceContext, readonly EntityReference[]>();

// The entities of each linked entity's API by resource type (its own major included), for restores that follow a change set.
const apiOf = new WeakMap<ServiceContext, ReadonlyMap<string, ServiceContext>>();

/** The entities of `ctx`'s API by resource type (`ctx` alone before linking). */
export const contextsOf = (ctx: ServiceContext): ReadonlyMap<string, ServiceContext> => apiOf.get(ctx) ?? new Map([[ctx.resourceType, ctx]]);

/** The references `ctx`'s fields make, resolved at start-up (none before linking). */
export const referencesOf = (ctx: ServiceContext): readonly EntityReference[] => outgoingOf.get(ctx) ?? [];

/** Depth of a scope: a record of depth n has the scope columns of every depth up to n. */
const DEPTH: Record<EntityScope, number> = { 'system-global': 0, 'workspace-shared': 1, 'cell-isolated': 2 };

/**
 * Where the target of a reference lives, seen from the record that makes it: the same tenant, and
 * the record's workspace and cell as far as the target's scope has them.
 */
export function targetScope(reference: EntityReference, record: RecordScope): RecordScope {
  const depth = DEPTH[reference.target.entity.scope];
  return { tenantId: record.tenantId, workspaceId: depth >= 1 ? record.workspaceId : null, cellId: depth >= 2 ? record.cellId : null };
}

/** A served entity by `key` or `key@v<major>`. */
function resolveTarget(contexts: readonly ServiceContext[], name: string, at: string): ServiceContext {
  const [key, pinned] = name.split('@v') as [string, string | undefined];
  const majors = contexts.filter((ctx) => ctx.entity.key === key);
  if (majors.length === 0) throw new ConfigurationError(at, `references "${key}", which this API does not serve (serve it in the same createGovernedApi).`);
  const majorOf = (ctx: ServiceContext) => ctx.resourceType.slice(ctx.resourceType.lastIndexOf('@v') + 2);
  if (pinned !== undefined) {
    const found = majors.find((ctx) => majorOf(ctx) === pinned);
    if (found === undefined) throw new ConfigurationError(at, `references "${name}", but this API serves ${key} only as v${majors.map(majorOf).join(', v')}.`);
    return found;
  }
  if (majors.length > 1)
    throw new ConfigurationError(
      at,
      `references "${key}", which this API serves as v${majors.map(majorOf).join(', v')}: name one, e.g. "${key}@v${majorOf(majors[0]!)}".`,
    );
  return majors[0]!;
}

/**
 * Resolves every reference of `contexts` (the resources of one API, `at` the option path of each
 * one's entity, for errors) and installs the write checks. Throws {@link ConfigurationError} naming the field for a
 * reference to an entity the API does not serve, or across scopes no record could satisfy (a
 * workspace record pointing into a cell, a tenant-wide one into a workspace).
 */
export function linkReferences(contexts: readonly ServiceContext[], entityPaths: readonly string[]): void {
  const references: EntityReference[] = [];
  contexts.forEach((source, index) => {
    for (const [field, descriptor] of Object.entries(source.entity.fields)) {
      if (descriptor.references === undefined) continue;
      const at = `${entityPaths[index]}.fields.${field}.references.entity`;
      const target = resolveTarget(contexts, descriptor.references.entity, at);
      if (DEPTH[target.entity.scope] > DEPTH[source.entity.scope]) {
        throw new ConfigurationError(
          at,
          `a ${source.entity.scope} record cannot reference a ${target.entity.scope} one (${target.entity.key}): it has no ${target.entity.scope === 'cell-isolated' ? 'cell' : 'workspace'} to find it in.`,
        );
      }
      references.push({ source, field, path: snakeToCamel(field), target, onDelete: descriptor.references.on_delete });
    }
  });
  const byType = new Map(contexts.map((ctx) => [ctx.resourceType, ctx]));
  for (const ctx of contexts) {
    apiOf.set(ctx, byType);
    const outgoing = references.filter((reference) => reference.source === ctx);
    outgoingOf.set(ctx, outgoing);
    const incoming = references.filter((reference) => reference.target === ctx);
    if (outgoing.length > 0) ctx.writeChecks.push(referenceCheck(outgoing));
    if (incoming.length > 0) ctx.writeChecks.push(onDeleteCheck(incoming));
  }
}
