/** The example catalog (docs/contract-conventions.md#example-entries): four YAML documents served as JSON. */
import { z } from 'zod';

/** One entry of `GET /api/examples` / `list_examples`. */
export const ExampleEntrySchema = z
  .object({
    key: z.string().describe('Example key; keys with a slash name entity files (`entities/customer.entity`).'),
    title: z.string(),
    description: z.string(),
    entities: z.array(z.string()).describe('Keys of the entities the example defines.'),
    format: z.literal('yaml').describe('Format of the source file; retrieval answers JSON.'),
  })
  .meta({ id: 'ExampleEntry' });

/** The example listing. */
export const ExampleListSchema = z.array(ExampleEntrySchema).meta({ id: 'ExampleList' });

/**
 * One example as `GET /api/examples/{key}` answers it: a CellManifestV1 (entities inlined, no
 * `$schema`) or, for `entities/*` keys, a manifest-form EntityDefinition.
 */
export const ExampleContentSchema = z
  .record(z.string(), z.unknown())
  .describe('A CellManifestV1 with its entity files inlined, or a manifest-form EntityDefinition for `entities/*` keys.')
  .meta({ id: 'ExampleContent' });

/** An example entry. */
export type ExampleEntry = z.infer<typeof ExampleEntrySchema>;
/** A parsed example. */
export type ExampleContent = z.infer<typeof ExampleContentSchema>;

/** The catalog, in listing order. Each key is the path of a YAML file below `files/` minus `.yaml`. */
export const exampleCatalog: readonly ExampleEntry[] = [
  {
    key: 'minimal-manifest',
    title: 'Minimal Cell',
    description: 'The smallest valid manifest: a mount and one dashboard page, no entities. Start here and grow.',
    entities: [],
    format: 'yaml',
  },
  {
    key: 'crm-manifest',
    title: 'CRM Application',
    description:
      'Customers and invoices with roles, list/detail/create pages, a data provider and a grouped sidebar. The entities come from the two entity examples.',
    entities: ['customer', 'invoice'],
    format: 'yaml',
  },
  {
    key: 'entities/customer.entity',
    title: 'Customer Entity',
    description:
      'A customer with a nested address, a has_many relation to invoices, a computed invoice count, a lead → active → inactive lifecycle and transition capabilities.',
    entities: ['customer'],
    format: 'yaml',
  },
  {
    key: 'entities/invoice.entity',
    title: 'Invoice Entity',
    description: 'An invoice that belongs to a customer, with currency display, a draft → sent → paid lifecycle and a PDF export capability.',
    entities: ['invoice'],
    format: 'yaml',
  },
];
