/**
 * The governed OpenAPI document per caller (docs/field-access.md): the schemas of an entity list
 * only the fields the caller may view. An anonymous caller (no token) holds no role, so it sees no
 * field that declares its own permissions. Documents are built once per distinct set of masks and
 * kept in a bounded map ({@link FIELD_ACCESS_CACHE_SIZE}).
 */
import type { EntityDefinitionDocument } from '../entity-document/index.ts';
import { FIELD_ACCESS_CACHE_SIZE } from '../limits.ts';
import type { FieldAccess, FieldMask } from './field-access.ts';
import type { Actor } from './types.ts';

/** What the documents need of each resource. */
interface DocumentedContext {
  entity: EntityDefinitionDocument;
  fieldAccess: FieldAccess;
}

/** The documents of an API: the full one (for code), and one per caller (served). */
export interface CallerDocuments {
  /** Every field of every resource: what `api.openapi()` returns to the application's code. */
  full(): Record<string, unknown>;
  /** The document of a caller (null: anonymous). */
  of(actor: Actor | null): Record<string, unknown>;
}

/** Roles an actor holds anywhere: the document is not per workspace, so a field it may view in any of them is listed. */
function rolesAnywhere(actor: Actor | null): ReadonlySet<string> {
  if (actor === null) return new Set();
  return new Set([...actor.roles, ...Object.values(actor.workspaces).flat()]);
}

/** Builds the documents of `contexts` with `build`, given each resource's entity as a caller sees it. */
export function callerDocuments(
  contexts: readonly DocumentedContext[],
  build: (entities: readonly EntityDefinitionDocument[]) => Record<string, unknown>,
): CallerDocuments {
  let full: Record<string, unknown> | undefined;
  const cache = new Map<string, Record<string, unknown>>();
  const guarded = contexts.some((ctx) => ctx.fieldAccess.declared);
  return {
    full: () => (full ??= build(contexts.map((ctx) => ctx.entity))),
    of(actor) {
      if (!guarded) return (full ??= build(contexts.map((ctx) => ctx.entity)));
      const roles = rolesAnywhere(actor);
      const masks: FieldMask[] = contexts.map((ctx) => ctx.fieldAccess.maskOfRoles(roles));
      const key = masks.map((mask) => mask.hidden.join(',')).join(';');
      let document = cache.get(key);
      if (document === undefined) {
        document = build(masks.map((mask) => mask.listEntity));
        if (cache.size >= FIELD_ACCESS_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(key, document);
      }
      return document;
    },
  };
}
