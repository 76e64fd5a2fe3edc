/**
 * The shape of a semantic rule. A rule is a named, described check over one subject (the whole
 * manifest, one page, one entity or one capability) that reports `{ field, message }` problems with
 * bracket-key paths (docs/decisions/A03.md). Rules run only on documents that passed the zod schema, so
 * they see parsed, typed data.
 */
import type { Keys } from './helpers.ts';
import type { CapabilityDefinition, CellManifest, EntityDefinition, FieldDefinition, PageDefinition } from '../../schema/index.ts';

/** Records one problem. */
export type Report = (field: string, message: string) => void;

/** Lookups over a whole manifest, built once per validation; absent when a part is validated alone. */
export interface ManifestIndex {
  entities: ReadonlyMap<string, EntityDefinition>;
  pageKeys: ReadonlySet<string>;
}

/** A page with the path prefix of its problems. */
export interface PageSubject {
  page: PageDefinition;
  at: string;
  index: ManifestIndex | undefined;
}

/** An entity with the path prefix of its problems. */
export interface EntitySubject {
  entity: EntityDefinition;
  at: string;
  index: ManifestIndex | undefined;
  /** The entity's field tree, flattened by the first field rule that needs it and shared by the rest. */
  fieldVisits?: readonly FieldVisit[];
}

/** A field with the dotted key path of its parent (`address.`, empty at the top) and its level (1 at the top). */
export interface FieldVisit {
  field: FieldDefinition;
  prefix: string;
  depth: number;
}

/** One capability of an entity with the path prefix of its problems. */
export interface CapabilitySubject extends EntitySubject {
  capability: CapabilityDefinition;
  /** The keys of the entity's lifecycle transitions (absent without a lifecycle), shared by its capabilities. */
  transitionKeys: Keys | undefined;
}

/** Which subject a rule checks. */
export interface RuleSubjects {
  manifest: { manifest: CellManifest; index: ManifestIndex };
  page: PageSubject;
  entity: EntitySubject;
  capability: CapabilitySubject;
}

/** A semantic rule over subjects of kind `S`. */
export interface Rule<S extends keyof RuleSubjects = keyof RuleSubjects> {
  /** Stable identifier, e.g. `page.unique-paths`. */
  id: string;
  /** Which subject the rule checks; the runner iterates the subjects. */
  scope: S;
  /** One sentence for the schema descriptions' `semanticRules`. */
  description: string;
  /** Reports every violation; absent for rules the zod schema itself enforces (listed for description only). */
  check?: (subject: RuleSubjects[S], report: Report) => void;
}

/** Any rule. */
export type AnyRule = { [S in keyof RuleSubjects]: Rule<S> }[keyof RuleSubjects];

/** Declares a rule with its subject type inferred from `scope`. */
export function rule<S extends keyof RuleSubjects>(definition: Rule<S>): Rule<S> {
  return definition;
}
