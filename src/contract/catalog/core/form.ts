/** Core primitives of the `form` category: composing inputs into a submission. */
import { z } from 'zod';
import { corePrimitive, prop } from './define.ts';

export const formPrimitives = [
  corePrimitive({
    key: 'form',
    category: 'form',
    description: 'Complete create or edit form for an entity: sections of fields, client-side checks and a submit button.',
    bestFor: ['entity-create and entity-edit pages', 'Capability inputs collected before an action runs'],
    props: z.strictObject({
      entity: prop.entity,
      mode: z.enum(['create', 'edit']),
      sections: z.array(z.strictObject({ key: z.string().min(1), title: z.string().optional(), fields: z.array(prop.field).min(1) })).optional(),
      submitLabel: z.string().optional(),
    }),
    examples: [
      {
        name: 'new-customer',
        description: 'Create a customer with one section.',
        props: {
          entity: 'customer',
          mode: 'create',
          sections: [{ key: 'main', title: 'Customer', fields: ['name', 'email'] }],
          submitLabel: 'Create customer',
        },
      },
      { name: 'edit-invoice', description: 'Edit an invoice with the default layout.', props: { entity: 'invoice', mode: 'edit' } },
    ],
  }),
  corePrimitive({
    key: 'form-field',
    category: 'form',
    description: 'Wrapper around one input that adds its label, help text, required marker and error message.',
    bestFor: ['Placing a single input with consistent labelling and error display'],
    props: z.strictObject({ field: prop.field, label: z.string().optional(), helpText: z.string().optional(), required: z.boolean().optional() }),
    examples: [
      {
        name: 'amount',
        description: 'A required amount with help text.',
        props: { field: 'amount', label: 'Amount', helpText: 'Total including tax', required: true },
      },
    ],
  }),
  corePrimitive({
    key: 'form-section',
    category: 'form',
    description: 'Titled group of related fields inside a form, laid out in one or more columns.',
    bestFor: ['Long forms split into meaningful parts such as contact details and billing'],
    props: z.strictObject({
      title: prop.text,
      description: z.string().optional(),
      fields: z.array(prop.field).min(1),
      columns: z.number().int().min(1).max(4).optional(),
    }),
    examples: [
      { name: 'billing', description: 'Billing fields in two columns.', props: { title: 'Billing', fields: ['amount', 'due_date', 'status'], columns: 2 } },
    ],
  }),
];
