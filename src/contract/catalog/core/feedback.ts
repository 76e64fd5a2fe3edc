/** Core primitives of the `feedback` category: telling users what happened or what is missing. */
import { z } from 'zod';
import { corePrimitive, prop } from './define.ts';

export const feedbackPrimitives = [
  corePrimitive({
    key: 'toast',
    category: 'feedback',
    description: 'Short message that appears briefly after an action, e.g. "Invoice sent", then disappears by itself.',
    bestFor: ['Confirming that an action succeeded', 'Non-blocking warnings'],
    avoidWhen: ['Errors the user must read and act on before continuing'],
    props: z.strictObject({ message: prop.text, tone: prop.tone.optional(), durationMs: z.number().int().min(0).optional() }),
    examples: [{ name: 'saved', description: 'A success message for four seconds.', props: { message: 'Customer saved', tone: 'success', durationMs: 4000 } }],
  }),
  corePrimitive({
    key: 'confirm-dialog',
    category: 'feedback',
    description: 'Modal question that asks the user to confirm or cancel before an important or irreversible action.',
    bestFor: ['Deleting records', 'Lifecycle transitions that cannot be undone'],
    props: z.strictObject({
      title: prop.text,
      message: prop.text,
      confirmLabel: z.string().optional(),
      cancelLabel: z.string().optional(),
      destructive: z.boolean().optional(),
    }),
    examples: [
      {
        name: 'delete-customer',
        description: 'Confirm deleting a customer.',
        props: {
          title: 'Delete customer?',
          message: 'The customer and its history will be hidden from every list.',
          confirmLabel: 'Delete',
          destructive: true,
        },
      },
    ],
  }),
  corePrimitive({
    key: 'empty-state',
    category: 'feedback',
    description: 'Placeholder shown when a collection has no records yet, explaining why and offering the next step.',
    bestFor: ['First use of a list', 'Searches and filters that match nothing'],
    props: z.strictObject({ title: prop.text, description: z.string().optional(), actionLabel: z.string().optional(), actionPageKey: z.string().optional() }),
    examples: [
      {
        name: 'no-invoices',
        description: 'No invoices yet, with a link to create one.',
        props: { title: 'No invoices yet', description: 'Invoices you create appear here.', actionLabel: 'New invoice', actionPageKey: 'invoice_create' },
      },
    ],
  }),
];
