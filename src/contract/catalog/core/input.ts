/** Core primitives of the `input` category: one control per value. A boolean uses `checkbox` (A8). */
import { z } from 'zod';
import { corePrimitive, prop } from './define.ts';

export const inputPrimitives = [
  corePrimitive({
    key: 'input',
    category: 'input',
    description: 'Single-line text entry for short values such as names, e-mail addresses, numbers or URLs.',
    bestFor: ['Short free-text or numeric values', 'Values with a known format like e-mail or phone'],
    avoidWhen: ['The text may span several lines'],
    props: z.strictObject({
      name: prop.name,
      label: z.string().optional(),
      inputType: z.enum(['text', 'email', 'url', 'tel', 'number', 'password']).optional(),
      placeholder: z.string().optional(),
      required: z.boolean().optional(),
      maxLength: z.number().int().positive().optional(),
    }),
    examples: [{ name: 'email', description: 'A required e-mail address.', props: { name: 'email', label: 'E-mail', inputType: 'email', required: true } }],
  }),
  corePrimitive({
    key: 'textarea',
    category: 'input',
    description: 'Multi-line text entry that grows with its content, for notes, descriptions and comments.',
    bestFor: ['Notes, descriptions and other paragraphs of text'],
    props: z.strictObject({
      name: prop.name,
      label: z.string().optional(),
      rows: z.number().int().min(1).max(40).optional(),
      placeholder: z.string().optional(),
      maxLength: z.number().int().positive().optional(),
    }),
    examples: [{ name: 'notes', description: 'Internal notes, five rows high.', props: { name: 'notes', label: 'Notes', rows: 5 } }],
  }),
  corePrimitive({
    key: 'select',
    category: 'input',
    description: 'Drop-down choice from a fixed list of options, single or multiple.',
    bestFor: ['Enum fields with more than a few values', 'Choosing several tags from a known list'],
    avoidWhen: ['Only two or three options that fit on screen: a radio group shows them at once'],
    props: z.strictObject({
      name: prop.name,
      label: z.string().optional(),
      options: z.array(prop.option).min(1),
      multiple: z.boolean().optional(),
      placeholder: z.string().optional(),
    }),
    examples: [
      {
        name: 'status',
        description: 'The status of an invoice.',
        props: {
          name: 'status',
          label: 'Status',
          options: [
            { value: 'draft', label: 'Draft' },
            { value: 'sent', label: 'Sent' },
            { value: 'paid', label: 'Paid' },
          ],
        },
      },
    ],
  }),
  corePrimitive({
    key: 'checkbox',
    category: 'input',
    description: 'A tick box for one yes/no value; the control for every boolean field.',
    bestFor: ['Boolean fields', 'Consent and opt-in questions'],
    props: z.strictObject({ name: prop.name, label: prop.text, defaultChecked: z.boolean().optional() }),
    examples: [
      {
        name: 'newsletter',
        description: 'Opt in to the newsletter, unticked by default.',
        props: { name: 'newsletter', label: 'Send me the newsletter', defaultChecked: false },
      },
    ],
  }),
  corePrimitive({
    key: 'radio-group',
    category: 'input',
    description: 'A small set of mutually exclusive options, all visible at once.',
    bestFor: ['Two to five options the user should compare before choosing'],
    avoidWhen: ['Long option lists: use select'],
    props: z.strictObject({
      name: prop.name,
      label: z.string().optional(),
      options: z.array(prop.option).min(2),
      orientation: z.enum(['horizontal', 'vertical']).optional(),
    }),
    examples: [
      {
        name: 'priority',
        description: 'Ticket priority laid out in a row.',
        props: {
          name: 'priority',
          label: 'Priority',
          options: [
            { value: 'low', label: 'Low' },
            { value: 'normal', label: 'Normal' },
            { value: 'high', label: 'High' },
          ],
          orientation: 'horizontal',
        },
      },
    ],
  }),
  corePrimitive({
    key: 'date-input',
    category: 'input',
    description: 'Calendar picker for a date, or a date and time, with optional bounds.',
    bestFor: ['date and datetime fields such as due dates or appointments'],
    props: z.strictObject({
      name: prop.name,
      label: z.string().optional(),
      withTime: z.boolean().optional(),
      min: z.string().optional().describe('Earliest allowed value, ISO 8601.'),
      max: z.string().optional().describe('Latest allowed value, ISO 8601.'),
    }),
    examples: [{ name: 'due-date', description: 'A due date no earlier than 2026-01-01.', props: { name: 'due_date', label: 'Due date', min: '2026-01-01' } }],
  }),
  corePrimitive({
    key: 'relation-field',
    category: 'input',
    description: 'Searchable picker that links the record to one or more records of another entity.',
    bestFor: ['belongs_to and many_to_many relations', 'Choosing a customer, owner or project by name'],
    props: z.strictObject({
      name: prop.name,
      label: z.string().optional(),
      entity: prop.entity,
      displayField: prop.field.optional(),
      multiple: z.boolean().optional(),
    }),
    examples: [
      {
        name: 'invoice-customer',
        description: 'The customer an invoice belongs to, shown by name.',
        props: { name: 'customer_id', label: 'Customer', entity: 'customer', displayField: 'name' },
      },
    ],
  }),
];
