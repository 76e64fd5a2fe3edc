/** Core primitives of the `display` category: read-only presentation of values. */
import { z } from 'zod';
import { corePrimitive, prop } from './define.ts';

export const displayPrimitives = [
  corePrimitive({
    key: 'stat-card',
    category: 'display',
    description: 'One headline figure with its label and, optionally, the change against a previous period.',
    bestFor: ['Key figures on dashboards such as open invoices or revenue this month'],
    props: z.strictObject({
      label: prop.text,
      value: z.union([z.number(), z.string()]),
      format: z.enum(['number', 'currency', 'percentage']).optional(),
      delta: z.number().optional(),
      trend: z.enum(['up', 'down', 'flat']).optional(),
      tone: prop.tone.optional(),
    }),
    examples: [
      {
        name: 'revenue',
        description: 'Monthly revenue up 12 %.',
        props: { label: 'Revenue this month', value: 48200, format: 'currency', delta: 12, trend: 'up', tone: 'success' },
      },
    ],
  }),
  corePrimitive({
    key: 'badge',
    category: 'display',
    description: 'Small coloured label for a status, tag or count.',
    bestFor: ['Enum and lifecycle states in lists and headers'],
    props: z.strictObject({ label: prop.text, tone: prop.tone.optional() }),
    examples: [{ name: 'overdue', description: 'An overdue invoice.', props: { label: 'Overdue', tone: 'danger' } }],
  }),
  corePrimitive({
    key: 'timeline',
    category: 'display',
    description: 'Chronological list of events of a record or of the whole cell, such as changes, comments and transitions.',
    bestFor: ['Record history on detail pages', 'Recent activity on dashboards'],
    props: z.strictObject({
      entity: prop.entity.optional(),
      eventTypes: z.array(z.string().min(1)).optional(),
      order: z.enum(['newest-first', 'oldest-first']).optional(),
      limit: z.number().int().min(1).max(100).optional(),
    }),
    examples: [
      {
        name: 'invoice-history',
        description: 'The latest ten changes of an invoice.',
        props: { entity: 'invoice', eventTypes: ['entity.created', 'entity.updated'], order: 'newest-first', limit: 10 },
      },
    ],
  }),
  corePrimitive({
    key: 'detail-field',
    category: 'display',
    description: 'One labelled value of a record, rendered according to its type (currency, date, link, badge…).',
    bestFor: ['Sections of detail pages', 'Read-only summaries inside cards'],
    props: z.strictObject({
      field: prop.field,
      label: z.string().optional(),
      display: z.enum(['text', 'number', 'currency', 'date', 'datetime', 'boolean', 'badge', 'email', 'url', 'entity-link']).optional(),
      emptyLabel: z.string().optional(),
    }),
    examples: [
      { name: 'amount', description: 'An amount shown as currency.', props: { field: 'amount', label: 'Amount', display: 'currency', emptyLabel: '—' } },
    ],
  }),
];
