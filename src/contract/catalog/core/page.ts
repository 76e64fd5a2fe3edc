/** Core primitives of the `page` category: complete page layouts matching the page types. */
import { z } from 'zod';
import { corePrimitive, prop } from './define.ts';

export const pagePrimitives = [
  corePrimitive({
    key: 'list-page',
    category: 'page',
    description: 'Ready-made entity-list page: heading, toolbar, filters, a data grid and paging wired to one entity.',
    bestFor: ['entity-list pages that need no custom layout'],
    props: z.strictObject({
      entity: prop.entity,
      title: z.string().optional(),
      columns: z.array(prop.field).optional(),
      filters: z.array(prop.field).optional(),
      createPageKey: z.string().optional(),
    }),
    examples: [
      {
        name: 'invoices',
        description: 'Invoices with status and amount columns.',
        props: { entity: 'invoice', title: 'Invoices', columns: ['number', 'status', 'amount'], filters: ['status'], createPageKey: 'invoice_create' },
      },
    ],
  }),
  corePrimitive({
    key: 'detail-page',
    category: 'page',
    description: 'Ready-made entity-detail page: record header with actions, then tabs and sections of fields.',
    bestFor: ['entity-detail pages showing one record and its related data'],
    props: z.strictObject({
      entity: prop.entity,
      titleField: prop.field.optional(),
      tabs: z.array(prop.tab).optional(),
      sections: z.array(z.strictObject({ title: prop.text, fields: z.array(prop.field).min(1) })).optional(),
    }),
    examples: [
      {
        name: 'customer',
        description: 'A customer titled by name with one section.',
        props: { entity: 'customer', titleField: 'name', sections: [{ title: 'Contact', fields: ['email', 'status'] }] },
      },
    ],
  }),
  corePrimitive({
    key: 'dashboard-page',
    category: 'page',
    description: 'Grid of widgets (stat cards, timelines, short lists) that summarises the cell at a glance.',
    bestFor: ['The landing page of a cell', 'Overview pages with key figures'],
    props: z.strictObject({
      title: z.string().optional(),
      columns: z.number().int().min(1).max(6).optional(),
      widgets: z
        .array(
          z.strictObject({
            key: z.string().min(1),
            primitive: z.string().min(1),
            title: z.string().optional(),
            span: z.number().int().min(1).max(6).optional(),
          }),
        )
        .min(1),
    }),
    examples: [
      {
        name: 'crm-overview',
        description: 'Two key figures and recent activity.',
        props: {
          title: 'Dashboard',
          columns: 3,
          widgets: [
            { key: 'open_invoices', primitive: 'stat-card' },
            { key: 'customers', primitive: 'stat-card' },
            { key: 'activity', primitive: 'timeline', span: 3 },
          ],
        },
      },
    ],
  }),
];
