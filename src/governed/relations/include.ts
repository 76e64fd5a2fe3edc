/**
 * `include` on a record read (docs/entities.md#including-referenced-records): `GET …/tasks/{id}?include=project`
 * answers the referenced record beside the record, one level deep, with the caller's own access
 * to the target entity applied: a target the caller may not read, or that is gone, is answered
 * as its id alone. Bounded: one primary-key read per name, at most one name per reference field
 * and at most `MAX_INCLUDES`.
 */
import { z } from 'zod';
import { snakeToCamel } from '../../entity-document/index.ts';
import { MAX_INCLUDES } from '../../limits.ts';
import type { StoredRecord } from '../../storage/types.ts';
import { authorize } from '../access.ts';
import { validationErrorOf } from '../service-schemas.ts';
import { viewFor, type ServiceContext } from '../service-context.ts';
import type { GovernedContext } from '../types.ts';
import { referencesOf, targetScope } from './link.ts';

/** The include name of a reference field: `project_id` → `project`, `owner` → `owner`. */
export const includeNameOf = (field: string): string => snakeToCamel(field.endsWith('_id') ? field.slice(0, -3) : field);

/** The structural part of an entity the include names come from. */
interface ReferencingEntity {
  fields: Readonly<Record<string, { references?: unknown }>>;
}

/** Include name → reference field (snake_case), in document order. */
export function includeNames(entity: ReferencingEntity): Map<string, string> {
  return new Map(Object.entries(entity.fields).flatMap(([field, descriptor]) => (descriptor.references === undefined ? [] : [[includeNameOf(field), field]])));
}

// Longest `include` text read: MAX_INCLUDES names of at most 100 characters and their commas.
const MAX_INCLUDE_TEXT = MAX_INCLUDES * 101;

/**
 * The `include` parameter of one entity: comma-separated include names (or a list, in code), each
 * once, at most {@link MAX_INCLUDES}; parsed to the reference fields they name.
 */
export function includeSchema(entity: ReferencingEntity) {
  const names = includeNames(entity);
  const known = names.size === 0 ? 'this resource has no references' : `one of: ${[...names.keys()].join(', ')}`;
  return z
    .union([z.string().max(MAX_INCLUDE_TEXT), z.array(z.string().max(100)).max(MAX_INCLUDES)])
    .transform((value, ctx): string[] => {
      const asked = (typeof value === 'string' ? value.split(',') : value).map((name) => name.trim()).filter((name) => name !== '');
      if (asked.length > MAX_INCLUDES) {
        ctx.addIssue({ code: 'custom', message: `At most ${MAX_INCLUDES} names` });
        return z.NEVER;
      }
      const fields: string[] = [];
      for (const name of asked) {
        const field = names.get(name);
        if (field === undefined || fields.includes(field)) {
          ctx.addIssue({ code: 'custom', message: field === undefined ? unknownInclude(name) : `"${name}" is named twice` });
          return z.NEVER;
        }
        fields.push(field);
      }
      return fields;
    })
    .describe(`Referenced records to answer beside the record (\`included\`), comma-separated: ${known}. At most ${MAX_INCLUDES}.`);
}

/**
 * The refusal of an include name this resource does not have. It lists no names: a reader from
 * whom field access hides a reference field gets this same answer for it (see
 * {@link refuseHiddenIncludes}), so the answer never tells a hidden reference from a missing one.
 * The names a reader may use are in the OpenAPI document served to that reader.
 */
const unknownInclude = (name: string): string => `Unknown include "${name.slice(0, 100)}"`;

/**
 * Refuses an include of a reference field the reader may not view, exactly as an unknown include
 * name is refused at the HTTP edge (400 naming `include`), before anything is read: embedding the
 * target, or even its id, would give away the hidden field's value.
 */
export function refuseHiddenIncludes(fields: readonly string[], hidden: ReadonlySet<string>): void {
  const refused = fields.find((field) => hidden.has(snakeToCamel(field)));
  if (refused !== undefined) throw validationErrorOf('query parameter', [{ path: 'include', message: unknownInclude(includeNameOf(refused)) }]);
}

/** What `included` holds for one name: the target's data as the caller may see it, its id alone, or null for an empty reference. */
export type IncludedRecord = Record<string, unknown> | null;

/** The referenced records of `record` for `fields`, each read with the caller's access to its entity. */
export async function includedRecords(
  ctx: ServiceContext,
  context: GovernedContext,
  record: StoredRecord,
  fields: readonly string[],
): Promise<Record<string, IncludedRecord>> {
  const included: Record<string, IncludedRecord> = {};
  for (const field of fields) {
    const reference = referencesOf(ctx).find((candidate) => candidate.field === field);
    const id = record.fields[field];
    if (reference === undefined || typeof id !== 'string') {
      included[includeNameOf(field)] = null;
      continue;
    }
    const target = reference.target;
    const scope = targetScope(reference, record);
    let readable = true;
    try {
      authorize(context.actor, target.policy, scope.workspaceId, 'read');
    } catch {
      readable = false;
    }
    const found = readable ? await target.storage.get(target.model, scope, id) : null;
    included[includeNameOf(field)] = found === null || found.deletedAt !== null ? { id } : viewFor(target, context, found).data;
  }
  return included;
}
