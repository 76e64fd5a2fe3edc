/** Core primitives of the `collection` category: showing and acting on many records. */
import { z } from 'zod';
import { corePrimitive, prop } from './define.ts';

export const collectionPrimitives = [
  corePrimitive({
    key: 'data-grid',
    category: 'collection',
    description: 'Tabular view of many records with sortable columns, row selection and paging; the default way to browse an entity.',
    bestFor: ['Browsing and comparing many records field by field', 'Admin screens where users sort, select and act in bulk'],
    avoidWhen: ['Records are mostly images or rich text better shown as cards', 'There are only a handful of records'],
    props: z.strictObject({
      entity: prop.entity,
      columns: z
        .array(
          z.strictObject({ field: prop.field, label: z.string().optional(), sortable: z.boolean().optional(), width: z.number().int().positive().optional() }),
        )
        .min(1),
      pageSize: z.number().int().min(1).max(100).optional(),
      selectable: z.boolean().optional(),
      emptyMessage: z.string().optional(),
    }),
    examples: [
      {
        name: 'customers-table',
        description: 'Customers with sortable name and status columns, 25 rows per page.',
        props: {
          entity: 'customer',
          columns: [{ field: 'name', sortable: true }, { field: 'email' }, { field: 'status', label: 'Status', sortable: true }],
          pageSize: 25,
          selectable: true,
        },
      },
    ],
  }),
  corePrimitive({
    key: 'card-list',
    category: 'collection',
    description: 'Records laid out as cards in a responsive grid, each card showing a title, a subtitle and a few chosen fields.',
    bestFor: ['Visual records such as products or people', 'Small screens where a wide table does not fit'],
    avoidWhen: ['Users need to compare many columns side by side'],
    props: z.strictObject({
      entity: prop.entity,
      titleField: prop.field,
      subtitleField: prop.field.optional(),
      fields: z.array(prop.field).optional(),
      columns: z.number().int().min(1).max(6).optional(),
    }),
    examples: [
      {
        name: 'product-cards',
        description: 'Products as three cards per row.',
        props: { entity: 'product', titleField: 'name', subtitleField: 'sku', fields: ['price'], columns: 3 },
      },
    ],
  }),
  corePrimitive({
    key: 'pagination',
    category: 'collection',
    description: 'Page navigation for a long collection: previous/next controls, the current page and the total count.',
    bestFor: ['Splitting large result sets into stable, linkable pages'],
    avoidWhen: ['A continuous feed where infinite scrolling reads more naturally'],
    props: z.strictObject({
      page: z.number().int().min(1),
      pageSize: z.number().int().min(1).max(100),
      total: z.number().int().min(0),
      showTotal: z.boolean().optional(),
    }),
    examples: [{ name: 'second-page', description: 'Page 2 of 95 records, 20 per page.', props: { page: 2, pageSize: 20, total: 95, showTotal: true } }],
  }),
  corePrimitive({
    key: 'filter-bar',
    category: 'collection',
    description: 'Row of filter controls and a search box above a collection; every control maps to a declared filter of the entity.',
    bestFor: ['Narrowing a list by status, date range or owner', 'Free-text search over a few fields'],
    props: z.strictObject({
      filters: z
        .array(
          z.strictObject({
            field: prop.field,
            label: z.string().optional(),
            operator: z.enum(['equals', 'in', 'contains', 'startsWith', 'before', 'after', 'between', 'gt', 'lt']).optional(),
          }),
        )
        .min(1),
      searchPlaceholder: z.string().optional(),
    }),
    examples: [
      {
        name: 'invoice-filters',
        description: 'Filter invoices by status and due date, with search.',
        props: {
          filters: [
            { field: 'status', operator: 'in' },
            { field: 'due_date', label: 'Due', operator: 'between' },
          ],
          searchPlaceholder: 'Search invoices',
        },
      },
    ],
  }),
  corePrimitive({
    key: 'bulk-command-bar',
    category: 'collection',
    description: 'Bar that appears while records are selected and offers commands applying to the whole selection.',
    bestFor: ['Archiving, assigning or exporting several records at once'],
    props: z.strictObject({ actions: z.array(prop.action).min(1), selectedCount: z.number().int().min(0).optional() }),
    examples: [
      {
        name: 'archive-selected',
        description: 'Archive or export the selected records.',
        props: {
          actions: [
            { key: 'archive', label: 'Archive', variant: 'danger' },
            { key: 'export', label: 'Export CSV', capability: 'export_csv' },
          ],
          selectedCount: 3,
        },
      },
    ],
  }),
];
