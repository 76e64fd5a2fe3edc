/** The `@example` of {@link defineEntity}, type-checked (build/jsdoc-examples/sync.ts). */
// #region defineEntity
import { defineEntity } from 'cellgate';

export const Invoice = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Invoice',
  key: 'crm.invoice',
  version: '1.0.0',
  description: 'A customer invoice',
  scope: 'cell-isolated',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: { amount: { type: 'number' } },
});
// #endregion
