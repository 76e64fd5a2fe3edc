/** Shared fixtures of the governed-core unit tests: demo entities, actors, a fresh service. */
// Relative imports: the core is tested on its own, independent of the rest of the root barrel.
import {
  defineEntity,
  type EntityDefinition,
  createGovernedService,
  type Actor,
  type GovernedContext,
  type GovernedServiceOptions,
  memoryStorage,
} from 'cellgate';

export const TENANT = '11111111-1111-4111-8111-111111111111';
export const OTHER_TENANT = '22222222-2222-4222-8222-222222222222';
export const WS = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
export const OTHER_WS = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
export const CELL = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
export const OTHER_CELL = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';

const permissions = { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] };
const $schema = 'https://cellgate.dev/schemas/entity-definition/v1.json';

export const Customer = defineEntity({
  $schema,
  name: 'Customer',
  key: 'crm.customer',
  version: '1.0.0',
  description: 'A customer of the workspace',
  scope: 'workspace-shared',
  governance_tier: 'tier-1',
  permissions,
  fields: {
    name: { type: 'string' },
    email: { type: 'string', format: 'email', sensitive: true },
    phone: { type: 'string', optional: true, sensitive: true },
    status: { type: 'string', enum: ['lead', 'active', 'inactive'] },
    notes: { type: 'string', optional: true, nullable: true, redact: 'hash' },
    annual_revenue: { type: 'number', optional: true },
  },
  data: {
    filtering: {
      allowedFields: ['status', 'name', 'annual_revenue'],
      operators: { status: ['equals', 'in'], name: ['contains', 'startsWith'], annual_revenue: ['gt', 'lt', 'between'] },
    },
    searching: { fields: ['name', 'email'] },
    sorting: { allowedFields: ['name', 'annual_revenue', 'created_at'], default: { field: 'created_at', direction: 'desc' } },
  },
});

export const Invoice = defineEntity({
  $schema,
  name: 'Invoice',
  key: 'crm.invoice',
  version: '1.0.0',
  description: 'A customer invoice',
  scope: 'cell-isolated',
  governance_tier: 'tier-2',
  permissions,
  fields: {
    invoice_number: { type: 'string' },
    customer_id: { type: 'string', format: 'uuid' },
    customer_name: { type: 'string' },
    amount: { type: 'number' },
    due_date: { type: 'string', format: 'date-time' },
    status: { type: 'string', enum: ['DRAFT', 'SENT', 'PAID', 'OVERDUE'] },
    payment_token: { type: 'string', optional: true, sensitive: true, credential: true },
  },
  data: {
    filtering: {
      allowedFields: ['status', 'due_date', 'customer_id', 'amount'],
      operators: { status: ['equals', 'in'], due_date: ['before', 'after', 'between'], customer_id: ['equals'], amount: ['gt', 'lt', 'between'] },
    },
    searching: { fields: ['invoice_number', 'customer_name'] },
    sorting: { allowedFields: ['due_date', 'amount', 'created_at'], default: { field: 'created_at', direction: 'desc' } },
  },
});

export const ActivityEvent = defineEntity({
  $schema,
  name: 'ActivityEvent',
  key: 'ops.activity_event',
  version: '1.0.0',
  description: 'Something that happened',
  scope: 'system-global',
  governance_tier: 'tier-3',
  permissions,
  fields: { kind: { type: 'string' }, payload: { type: 'object', optional: true } },
});

/** An actor with tenant-wide or per-workspace roles. */
export function actor(overrides: Partial<Actor> = {}): Actor {
  return {
    id: '99999999-9999-4999-8999-999999999999',
    type: 'user',
    tenantId: TENANT,
    roles: [],
    workspaces: { [WS]: ['admin'] },
    permissions: ['audit:read', 'audit:restore', 'crm.customers.read', 'crm.invoices.read'],
    ...overrides,
  };
}

export const admin = actor();
export const wsCtx = (who: Actor = admin, workspaceId = WS): GovernedContext => ({
  actor: who,
  scope: { workspaceId },
  meta: { requestId: 'req-1', traceId: 'trace-1', ip: '127.0.0.1', userAgent: 'vitest' },
});
export const cellCtx = (who: Actor = admin, cellId = CELL): GovernedContext => ({ actor: who, scope: { workspaceId: WS, cellId } });

/** A fresh memory storage and a migrated service. */
export async function setup(entity: EntityDefinition = Customer, options: Partial<GovernedServiceOptions> = {}) {
  const storage = memoryStorage();
  const logs: unknown[] = [];
  const service = createGovernedService({ entity, storage, redaction: { hashSecret: 'test-secret' }, logger: (entry) => logs.push(entry), ...options });
  await storage.migrate([service.model]);
  return { storage, service, logs };
}

export const customerInput = { name: 'Acme', email: 'billing@acme.test', status: 'lead' } as const;
export const invoiceInput = { invoiceNumber: 'INV-1', customerId: WS, customerName: 'Acme', amount: 100, dueDate: '2026-01-15', status: 'DRAFT' };
