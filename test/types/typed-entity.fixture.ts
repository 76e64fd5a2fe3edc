/**
 * Type-level cases of inferred entity records, compiled by tsc (test/types/types.test.ts and the
 * project's own type check). Each `@ts-expect-error` marks code that must NOT compile; if it ever
 * compiles, tsc reports the unused directive and the test fails.
 */
import { createGovernedResource, createGovernedService, defineEntity, loadEntity, memoryStorage, type EntityRecordOf, type GovernedContext } from 'cellgate';

const Invoice = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Invoice',
  key: 'billing.invoice',
  version: '1.0.0',
  description: 'A customer invoice',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: {
    invoice_number: { type: 'string' },
    amount: { type: 'number' },
    line_count: { type: 'integer', optional: true },
    paid: { type: 'boolean' },
    status: { type: 'string', enum: ['DRAFT', 'PAID'] },
    due_at: { type: 'string', format: 'date-time', nullable: true },
    meta: { type: 'object', optional: true },
    tags: { type: 'array', optional: true },
  },
});

// `as const` documents are accepted too (read-only arrays).
const Note = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Note',
  key: 'work.note',
  version: '1.0.0',
  description: 'A note',
  scope: 'system-global',
  governance_tier: 'tier-3',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: { body: { type: 'string' } },
} as const);

type Row = EntityRecordOf<typeof Invoice>;
const row: Row = { invoiceNumber: 'INV-1', amount: 1, lineCount: null, paid: false, status: 'DRAFT', dueAt: null, meta: null, tags: null };
void row;

declare const context: GovernedContext;

export async function cases(): Promise<void> {
  const service = createGovernedService({ entity: Invoice, storage: memoryStorage() });
  const created = await service.create(context, { invoiceNumber: 'INV-1', amount: 120, paid: false, status: 'DRAFT', dueAt: null });
  const amount: number = created.data.amount;
  const status: 'DRAFT' | 'PAID' = created.data.status;
  const lines: number | null = created.data.lineCount;
  const due: string | null = created.data.dueAt;
  const id: string = created.data.id;
  const version: number = created.data.version;
  void [amount, status, lines, due, id, version];

  // @ts-expect-error a misspelt field
  await service.create(context, { invoiceNumber: 'INV-2', amont: 5, amount: 5, paid: false, status: 'DRAFT', dueAt: null });
  // @ts-expect-error a wrong value type
  await service.create(context, { invoiceNumber: 'INV-2', amount: '5', paid: false, status: 'DRAFT', dueAt: null });
  // @ts-expect-error a value outside the enum
  await service.create(context, { invoiceNumber: 'INV-2', amount: 5, paid: false, status: 'VOID', dueAt: null });
  // @ts-expect-error a required field left out
  await service.create(context, { invoiceNumber: 'INV-2', paid: false, status: 'DRAFT', dueAt: null });
  // @ts-expect-error null for a field that is neither nullable nor optional
  await service.create(context, { invoiceNumber: 'INV-2', amount: null, paid: false, status: 'DRAFT', dueAt: null });
  // @ts-expect-error a misspelt field in a merge PATCH
  await service.update(context, id, { expectedVersion: 1, amout: 3 });
  await service.update(context, id, { expectedVersion: 1, amount: 3 });
  await service.update(context, id, { expectedVersion: 1, patch: [{ op: 'replace', path: '/amount', value: 3 }] });

  const page = await service.list(context);
  const first: number | undefined = page.data[0]?.amount;
  void first;
  // @ts-expect-error reading a field the entity does not have
  void page.data[0]?.amout;

  // The resource carries the same types.
  const resource = createGovernedResource({ entity: Invoice, storage: memoryStorage(), auth: { secret: 'x'.repeat(32) } });
  const fromResource = await resource.service.get(context, id);
  const paid: boolean = fromResource.data.paid;
  void paid;
  // @ts-expect-error a string is not a number
  const wrong: number = fromResource.data.status;
  void wrong;

  const notes = createGovernedService({ entity: Note, storage: memoryStorage() });
  const note = await notes.create(context, { body: 'hello' });
  const body: string = note.data.body;
  void body;

  // A document known only at run time: the general record.
  const loaded = loadEntity(JSON.parse('{}') as unknown);
  const general = createGovernedService({ entity: loaded, storage: memoryStorage() });
  const anything = await general.create(context, { whatever: 1 });
  const value: unknown = anything.data.whatever;
  void value;
}
