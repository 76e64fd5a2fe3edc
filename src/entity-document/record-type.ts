/**
 * Types inferred from an entity document written in code: the camelCase record a service answers
 * and the input it accepts, from each field's `type`, `format`, `enum`, `nullable` and `optional`.
 * Types only; the document is still validated at run time by `defineEntity`.
 */
import type { EntityDefinitionDocument, EntityDocumentInput } from './schema.ts';

/** Base field names: set by the server, never part of the business input. */
export type BaseFieldName =
  | 'id'
  | 'tenant_id'
  | 'workspace_id'
  | 'cell_id'
  | 'version'
  | 'created_at'
  | 'created_by'
  | 'updated_at'
  | 'updated_by'
  | 'deleted_at'
  | 'deleted_by';

/** `invoice_number` → `invoiceNumber`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** A value as written in JSON for a field descriptor (before null). */
export type FieldValue<F> = F extends { readonly enum: readonly (infer E extends string)[] }
  ? E
  : F extends { readonly type: 'string' }
    ? string
    : F extends { readonly type: 'integer' | 'number' }
      ? number
      : F extends { readonly type: 'boolean' }
        ? boolean
        : F extends { readonly type: 'object' }
          ? Record<string, unknown>
          : F extends { readonly type: 'array' }
            ? unknown[]
            : unknown;

type IsTrue<F, K extends string> = F extends { readonly [P in K]: true } ? true : false;
type Fields<D> = D extends { readonly fields: infer F } ? F : never;
type BusinessKeys<D> = Exclude<keyof Fields<D>, BaseFieldName> & string;
type OptionalKeys<D> = { [K in BusinessKeys<D>]: IsTrue<Fields<D>[K], 'optional'> extends true ? K : never }[BusinessKeys<D>];
type NullIf<F> = IsTrue<F, 'nullable'> extends true ? null : never;

/** Fields that declare their own `permissions`: absent from the answers of a reader who may not view them (docs/field-access.md). */
type GuardedKeys<D> = { [K in BusinessKeys<D>]: Fields<D>[K] extends { readonly permissions: object } ? K : never }[BusinessKeys<D>];

/**
 * The business fields of a record as answered: camelCase, an absent optional field reads null; a
 * field with its own `permissions` may be absent (hidden from this reader: `meta.hiddenFields`).
 * The value type is written out in each mapped type, not named by an alias, so an editor's hover
 * shows `{ done: boolean | null; … }` rather than the alias applied to the whole document; an
 * entity without guarded fields keeps the one plain mapped type.
 */
export type RecordFieldsOf<D> = [GuardedKeys<D>] extends [never]
  ? {
      -readonly [K in BusinessKeys<D> as CamelCase<K>]: FieldValue<Fields<D>[K]> | NullIf<Fields<D>[K]> | (K extends OptionalKeys<D> ? null : never);
    }
  : {
      -readonly [K in Exclude<BusinessKeys<D>, GuardedKeys<D>> as CamelCase<K>]:
        | FieldValue<Fields<D>[K]>
        | NullIf<Fields<D>[K]>
        | (K extends OptionalKeys<D> ? null : never);
    } & {
      -readonly [K in GuardedKeys<D> as CamelCase<K>]?: FieldValue<Fields<D>[K]> | NullIf<Fields<D>[K]> | (K extends OptionalKeys<D> ? null : never);
    };

/** Fields that declare a `default`: a create may leave them out (docs/evolving-entities.md). */
type DefaultedKeys<D> = { [K in BusinessKeys<D>]: Fields<D>[K] extends { readonly default: unknown } ? K : never }[BusinessKeys<D>];

/**
 * The input of a create: required fields required, optional ones may be left out or null, fields
 * with a `default` may be left out (they take the default).
 */
export type CreateFieldsOf<D> = {
  -readonly [K in Exclude<BusinessKeys<D>, OptionalKeys<D> | DefaultedKeys<D>> as CamelCase<K>]: FieldValue<Fields<D>[K]> | NullIf<Fields<D>[K]>;
} & {
  -readonly [K in Exclude<DefaultedKeys<D>, OptionalKeys<D>> as CamelCase<K>]?: FieldValue<Fields<D>[K]> | NullIf<Fields<D>[K]>;
} & {
  -readonly [K in OptionalKeys<D> as CamelCase<K>]?: FieldValue<Fields<D>[K]> | null;
};

type DataBlockFields<D, Part extends 'sorting' | 'filtering'> = D extends {
  readonly data: { readonly [P in Part]: { readonly allowedFields: readonly (infer F extends string)[] } };
}
  ? F
  : never;

/** The camelCase fields a list of the entity may sort by: its `data.sorting.allowedFields`, plus `createdAt` and `updatedAt`. */
export type SortFieldOf<D> = CamelCase<DataBlockFields<D, 'sorting'>> | 'createdAt' | 'updatedAt';

/** Business fields that declare `references`: filterable without a data block entry (docs/entities.md#relations). */
type ReferenceKeys<D> = { [K in BusinessKeys<D>]: Fields<D>[K] extends { readonly references: object } ? K : never }[BusinessKeys<D>];

/** The camelCase fields a list of the entity may filter on: its `data.filtering.allowedFields` and its reference fields (none without either). */
export type FilterFieldOf<D> = CamelCase<DataBlockFields<D, 'filtering'> | ReferenceKeys<D>>;

/**
 * What an entity carries at the type level: its record fields and its create input, and the
 * fields its lists may sort by and filter on. The general form (any field, any value) is what a
 * document known only at run time gets; every inferred form is assignable to it.
 */
export interface EntityTypes {
  record: { [field: string]: unknown };
  input: { [field: string]: unknown };
  /** `sortBy` values of a list (any string when absent). */
  sortField?: string;
  /** Filterable fields of a list (any string when absent). */
  filterField?: string;
}

/** The `sortBy` values of an entity's lists (`string` for the general types). */
export type SortFieldIn<T extends EntityTypes> = T extends { sortField: infer S extends string } ? S : string;

/** The filterable fields of an entity's lists (`string` for the general types). */
export type FilterFieldIn<T extends EntityTypes> = T extends { filterField: infer F extends string } ? F : string;

/** The types of an entity known only at run time (a document loaded from JSON or YAML). */
export type GeneralEntityTypes = EntityTypes;

/**
 * A mapped type evaluated to its members, so the editor shows `{ title: string; done: boolean | null }`
 * on hover and in errors rather than `RecordFieldsOf<{ …the whole document… }>`.
 */
export type Expanded<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

/** The types inferred from a document written in code. */
export interface EntityTypesOf<D> {
  record: Expanded<RecordFieldsOf<D>>;
  input: Expanded<CreateFieldsOf<D>>;
  sortField: SortFieldOf<D>;
  filterField: FilterFieldOf<D>;
}

declare const ENTITY_TYPES: unique symbol;

/**
 * A checked entity definition (what `defineEntity` returns) that also carries, at the type level
 * only, the record and input types of its document.
 */
export type EntityDefinition<T extends EntityTypes = GeneralEntityTypes> = EntityDefinitionDocument & { readonly [ENTITY_TYPES]?: T };

/** The types an entity definition carries (general for a plain document). */
export type TypesOfEntity<E> = E extends { readonly [ENTITY_TYPES]?: infer T extends EntityTypes }
  ? unknown extends T
    ? GeneralEntityTypes
    : T
  : GeneralEntityTypes;

/** The record type of an entity definition, e.g. `EntityRecordOf<typeof Invoice>`. */
export type EntityRecordOf<E> = TypesOfEntity<E>['record'];

type Loose<T> = T extends readonly (infer U)[] ? readonly Loose<U>[] : T extends object ? { readonly [K in keyof T]: Loose<T[K]> } : T;

/** An entity document as written in code, `as const` or not (read-only arrays accepted). */
export type EntityDocumentShape = Loose<EntityDocumentInput>;

/**
 * An entity document whose literal types were widened, as a JSON or YAML import gives it
 * (`scope: string`). Accepted where a document is expected; checked at run time and typed as the
 * general record.
 */
export interface WidenedEntityDocument {
  readonly $schema: string;
  readonly name: string;
  readonly key: string;
  readonly version: string;
  readonly scope: string;
  readonly governance_tier: string;
  readonly permissions: { readonly view: readonly string[]; readonly edit: readonly string[]; readonly admin: readonly string[] };
  readonly fields: { readonly [name: string]: { readonly type: string } };
  readonly [member: string]: unknown;
}
