/**
 * The `resources` of `createGovernedApi`, and the types they give `api.resources`: a list of
 * entity documents (or `{ entity, … }` wrappers), or an object whose keys are the path names.
 * A key is only typed when it is written in the code (an object key, or a literal `resourceName`
 * on every wrapper of a list): the default path name is an English plural computed at run time,
 * and TypeScript cannot compute the same plural (docs/decisions/B02.md).
 */
import { ConfigurationError } from '../errors.ts';
import type { GeneralEntityTypes, TypesOfEntity } from '../entity-document/index.ts';
import type { GovernedHttpOptions, GovernedResource, GovernedResourceOptions } from './create-governed-resource.ts';
import { isResourceEntry } from './options-schema.ts';

/** Per-resource options around an entity document (`{ entity, tier?, rollback?, … }`). */
export type GovernedApiResourceOptions = Omit<GovernedResourceOptions, keyof GovernedHttpOptions | 'storage'>;

/** One resource of an API: an entity document, or per-resource options around one. */
export type GovernedApiResource = GovernedResourceOptions['entity'] | GovernedApiResourceOptions;

/**
 * The `resources` option: a list (`[Customer, { entity: Invoice, rollback: false }]`), or an
 * object keyed by path name (`{ customers: Customer, invoices: { entity: Invoice } }`), whose
 * keys become typed members of `api.resources`.
 */
export type GovernedApiResources = readonly GovernedApiResource[] | { readonly [resourceName: string]: GovernedApiResource };

/** The record and input types one entry of `resources` carries (general for a document known only at run time). */
export type TypesOfApiResource<E> = E extends { readonly $schema: unknown }
  ? TypesOfEntity<E>
  : E extends { readonly entity: infer D }
    ? TypesOfEntity<D>
    : GeneralEntityTypes;

/** `api.resources` when the keys are not known to the compiler: today's loose map. */
export type LooseGovernedResources = Readonly<Record<string, GovernedResource>>;

/** The literal `resourceName` of a `resources` entry (never for a plain `string`). */
export type LiteralResourceName<E> = E extends { readonly resourceName: infer N extends string } ? (string extends N ? never : N) : never;
/** True when every entry of a `resources` list names a literal `resourceName`. */
export type EveryResourceNamed<R extends readonly unknown[]> = [R[number]] extends [{ readonly resourceName: string }]
  ? [LiteralResourceName<R[number]>] extends [never]
    ? false
    : true
  : false;

/** A list whose every wrapper names a literal `resourceName`: those names, each with its own record type. */
export type NamedGovernedResources<R extends readonly unknown[]> = {
  readonly [E in R[number] as LiteralResourceName<E>]: GovernedResource<TypesOfApiResource<E>>;
};

/**
 * `api.resources` for a `resources` option: by key for an object form, by literal
 * `resourceName` for a list that names every entry, else {@link LooseGovernedResources}.
 *
 * @example
 * const api = createGovernedApi({ storage, auth, resources: { projects: Project, tasks: Task } });
 * api.resources.tasks.service; // GovernedService<typed from Task>
 */
export type GovernedResourcesOf<R> = R extends readonly unknown[]
  ? number extends R['length']
    ? LooseGovernedResources
    : EveryResourceNamed<R> extends true
      ? NamedGovernedResources<R>
      : LooseGovernedResources
  : string extends keyof R
    ? LooseGovernedResources
    : { readonly [K in keyof R & string]: GovernedResource<TypesOfApiResource<R[K]>> };

/** One entry of `resources` as the API builds it: where it sits (for errors) and its options. */
export interface ApiResourceEntry {
  /** `0`, `1`, … in a list; the key in an object. */
  label: string;
  options: GovernedApiResourceOptions;
}

/** The entries of a `resources` option, in order; an object's key becomes the entry's `resourceName`. */
export function apiResourceEntries(resources: GovernedApiResources): ApiResourceEntry[] {
  const wrap = (entry: GovernedApiResource) =>
    isResourceEntry(entry) ? (entry as GovernedApiResourceOptions) : { entity: entry as GovernedResourceOptions['entity'] };
  if (Array.isArray(resources)) return resources.map((entry: GovernedApiResource, index) => ({ label: String(index), options: wrap(entry) }));
  return Object.entries(resources as Record<string, GovernedApiResource>).map(([key, entry]) => {
    const options = wrap(entry);
    // The key is the path name; a wrapper may repeat it, never contradict it.
    if (options.resourceName !== undefined && options.resourceName !== key) {
      throw new ConfigurationError(`resources.${key}.resourceName`, `must be left out or equal its key "${key}" (the key is the path name).`);
    }
    return { label: key, options: { ...options, resourceName: key } };
  });
}
