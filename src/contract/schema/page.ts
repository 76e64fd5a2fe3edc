/** `PageDefinition`: one page of a cell, its six types and its data bindings. */
import { z } from 'zod';
import { list, nonEmptyString } from './common.ts';

/** The page types, whether each needs an `entity`, and what each is for. One table, read by the
 * schema, the semantic rules and the schema description. */
export const PAGE_TYPES = [
  { type: 'entity-list', entityRequired: true, description: 'Paginated list of the records of an entity.' },
  { type: 'entity-detail', entityRequired: true, description: 'Single record view; the path carries the `:id` parameter.' },
  { type: 'entity-create', entityRequired: true, description: 'Form that creates a record of an entity.' },
  { type: 'entity-edit', entityRequired: true, description: 'Form that edits an existing record of an entity.' },
  { type: 'dashboard', entityRequired: false, description: 'Overview made of widgets; not bound to one entity.' },
  { type: 'custom', entityRequired: false, description: 'Free-form page; not bound to one entity.' },
] as const;

/** A page type. */
export const PageTypeSchema = z
  .enum(PAGE_TYPES.map((entry) => entry.type) as [PageType, ...PageType[]])
  .meta({ id: 'PageType', description: 'entity-list, entity-detail, entity-create, entity-edit, dashboard or custom.' });

/** `menu` of a page (strict). */
export const PageMenuSchema = z
  .strictObject({
    label: z.string().optional().describe('Menu label.'),
    icon: z.string().optional().describe('Icon name.'),
    order: z.int().optional().describe('Position in the menu.'),
  })
  .meta({ id: 'PageMenu', description: 'Menu display of a page: label, icon, order.' });

/** `dataContext` (strict): the record a page is about. */
export const DataContextSchema = z
  .strictObject({
    entityKey: nonEmptyString().describe('Entity the page is bound to.'),
    idParam: z.string().min(1).default('id').describe('Route parameter holding the record id.'),
  })
  .meta({ id: 'DataContextDefinition', description: 'Data binding context: the entity and the route parameter of the record id.' });

/** One additional data provider of a page (strict). */
export const DataProviderSchema = z
  .strictObject({
    key: nonEmptyString().describe('Provider key, unique within the page.'),
    entityKey: nonEmptyString().describe('Entity the provider loads.'),
    mode: z.enum(['single', 'list']).describe('`single` loads one record, `list` a collection.'),
    idFrom: z.string().optional().describe('Where the record id comes from (single mode).'),
    filterBy: z.strictObject({ field: nonEmptyString(), valueFrom: nonEmptyString() }).optional().describe('Filter applied to the list.'),
    query: z
      .strictObject({ pageSize: z.int().positive().optional(), sortField: z.string().optional(), sortDir: z.enum(['asc', 'desc']).optional() })
      .optional()
      .describe('Paging and sorting of the list.'),
  })
  .meta({ id: 'DataProviderDefinition', description: 'An extra data source of a page.' });

/** `PageDefinition` (strict). */
export const PageDefinitionSchema = z
  .strictObject({
    key: nonEmptyString().describe('Unique page identifier.'),
    type: PageTypeSchema.describe('One of the page types.'),
    title: nonEmptyString().describe('Page title.'),
    // A structural rule (dot path `spec.pages.0.path`), worded as the public service words it; an
    // empty path is only reported as too short.
    path: nonEmptyString()
      .regex(/^(?:\/|$)/, { error: 'path must start with "/"' })
      .describe('Route path; starts with `/`, unique across pages.'),
    entity: nonEmptyString().optional().describe('Entity key; required for entity-* types, forbidden for dashboard and custom.'),
    menu: PageMenuSchema.optional().describe('Menu display: label, icon, order.'),
    options: z.record(z.string(), z.unknown()).optional().describe('Arbitrary page options.'),
    dataContext: DataContextSchema.optional().describe('Data binding context.'),
    dataProviders: list(DataProviderSchema).optional().describe('Additional data providers.'),
  })
  .meta({ id: 'PageDefinition', description: 'A page of the cell.' });

/** A page type name. */
export type PageType = (typeof PAGE_TYPES)[number]['type'];
/** Inferred type of a page (after parsing: defaults filled). */
export type PageDefinition = z.infer<typeof PageDefinitionSchema>;
