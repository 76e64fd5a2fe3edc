/** Core primitives of the `layout` category: the frame around content. */
import { z } from 'zod';
import { corePrimitive, prop } from './define.ts';

export const layoutPrimitives = [
  corePrimitive({
    key: 'page-shell',
    category: 'layout',
    description: 'Outer frame of a page: title area, optional breadcrumbs and the content region every other primitive sits in.',
    bestFor: ['Giving every page the same heading, spacing and width'],
    props: z.strictObject({
      title: prop.text,
      breadcrumbs: z.array(z.strictObject({ label: prop.text, pageKey: z.string().optional() })).optional(),
      maxWidth: z.enum(['narrow', 'wide', 'full']).optional(),
    }),
    examples: [
      {
        name: 'customers',
        description: 'The customers page with a breadcrumb back to the dashboard.',
        props: { title: 'Customers', breadcrumbs: [{ label: 'Dashboard', pageKey: 'dashboard' }, { label: 'Customers' }], maxWidth: 'wide' },
      },
    ],
  }),
  corePrimitive({
    key: 'sidebar',
    category: 'layout',
    description: 'Vertical navigation panel listing the pages of the cell, optionally collapsible.',
    bestFor: ['Apps with more than a few top-level pages'],
    avoidWhen: ['Single-page tools where the navigation would hold one item'],
    props: z.strictObject({
      items: z.array(z.strictObject({ key: z.string().min(1), label: prop.text, pageKey: z.string().optional(), icon: z.string().optional() })).min(1),
      collapsible: z.boolean().optional(),
    }),
    examples: [
      {
        name: 'crm-nav',
        description: 'Dashboard and customers.',
        props: {
          items: [
            { key: 'nav_dashboard', label: 'Dashboard', pageKey: 'dashboard', icon: 'home' },
            { key: 'nav_customers', label: 'Customers', pageKey: 'customer_list' },
          ],
          collapsible: true,
        },
      },
    ],
  }),
  corePrimitive({
    key: 'toolbar',
    category: 'layout',
    description: 'Horizontal strip of page-level commands, such as create, export or refresh.',
    bestFor: ['Primary actions of a list or detail page'],
    props: z.strictObject({ actions: z.array(prop.action).min(1), align: z.enum(['start', 'end', 'between']).optional() }),
    examples: [
      {
        name: 'list-actions',
        description: 'Create and export buttons aligned right.',
        props: {
          actions: [
            { key: 'create', label: 'New invoice', variant: 'primary' },
            { key: 'export', label: 'Export', capability: 'export_pdf' },
          ],
          align: 'end',
        },
      },
    ],
  }),
  corePrimitive({
    key: 'split-pane',
    category: 'layout',
    description: 'Two panes side by side or stacked, with an optional draggable divider, e.g. a list next to the selected record.',
    bestFor: ['Master-detail screens', 'Comparing two views at once'],
    avoidWhen: ['Narrow screens where both panes would be cramped'],
    props: z.strictObject({
      orientation: z.enum(['horizontal', 'vertical']).optional(),
      initialRatio: z.number().min(0.1).max(0.9).optional().describe('Share of the first pane, between 0.1 and 0.9.'),
      resizable: z.boolean().optional(),
    }),
    examples: [
      { name: 'master-detail', description: 'A list taking a third of the width.', props: { orientation: 'horizontal', initialRatio: 0.33, resizable: true } },
    ],
  }),
  corePrimitive({
    key: 'tabs',
    category: 'layout',
    description: 'Switches between sibling views of the same subject, one visible at a time.',
    bestFor: ['Detail pages with several facets such as overview, invoices and history'],
    props: z.strictObject({ tabs: z.array(prop.tab).min(1), defaultTab: z.string().optional() }),
    examples: [
      {
        name: 'customer-tabs',
        description: 'Overview, invoices and history of a customer.',
        props: {
          tabs: [
            { key: 'overview', label: 'Overview' },
            { key: 'invoices', label: 'Invoices' },
            { key: 'history', label: 'History' },
          ],
          defaultTab: 'overview',
        },
      },
    ],
  }),
];
