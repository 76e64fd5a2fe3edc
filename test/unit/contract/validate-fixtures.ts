/** A realistic CRM manifest used across the contract-core tests and the validation benchmark. */

/** A fresh copy of the CRM manifest (every test may mutate its own copy). */
export function crmManifest() {
  return {
    apiVersion: 'platform/v1alpha1',
    kind: 'Cell',
    metadata: { key: 'crm', name: 'CRM Cell', version: '1.0.0', description: 'Customers, contacts, deals and invoices.' },
    spec: {
      mount: { mountPath: '/crm', landingPage: 'dashboard' },
      roles: [
        { key: 'admin', name: 'Administrator', scopes: ['crm.admin'] },
        { key: 'sales', name: 'Sales', scopes: ['crm.customer.view', 'crm.deal.edit'] },
      ],
      entities: [
        {
          key: 'customer',
          name: 'Customer',
          pluralName: 'Customers',
          description: 'A company we sell to.',
          fields: [
            { key: 'name', type: 'string', name: 'Name' },
            { key: 'email', type: 'string', name: 'Email', sensitive: 'pii' },
            { key: 'status', type: 'enum', name: 'Status', enumValues: ['lead', 'active', 'inactive'] },
            { key: 'notes', type: 'text', name: 'Notes' },
            {
              key: 'address',
              type: 'object',
              name: 'Address',
              fields: [
                { key: 'street', type: 'string', name: 'Street' },
                { key: 'city', type: 'string', name: 'City' },
                { key: 'geo', type: 'object', name: 'Geo', fields: [{ key: 'lat', type: 'number', name: 'Latitude' }] },
              ],
            },
          ],
          relations: [{ key: 'invoices', relation: 'has_many', entity: 'invoice', foreignKey: 'customer_id' }],
          computed: [
            { key: 'invoice_count', name: 'Invoice count', type: 'number', formulaType: 'aggregation', relation: 'invoices', operation: 'count' },
            { key: 'display_label', name: 'Label', type: 'string', formulaType: 'expression', expression: 'name', dependencies: ['name', 'email'] },
          ],
          lifecycle: {
            field: 'status',
            initial: 'lead',
            states: ['lead', 'active', 'inactive'],
            transitions: [
              { key: 'activate', from: 'lead', to: 'active', label: 'Activate', guards: ['has_email'], hooks: ['notify_owner', 'log_activation'] },
              { key: 'deactivate', from: 'active', to: 'inactive' },
            ],
          },
          events: { exclude: ['notes'], names: { created: 'customer.created' } },
          capabilities: [
            { key: 'activate', type: 'transition', transition: 'activate', name: 'Activate' },
            {
              key: 'assign_owner',
              type: 'mutation',
              input: [
                { key: 'owner', type: 'entity', entity: 'contact', required: true },
                { key: 'priority', type: 'select', options: ['low', 'high'], defaultValue: 'low' },
              ],
            },
            { key: 'export_csv', type: 'export', format: 'csv' },
            { key: 'sync_erp', type: 'integration', target: 'erp' },
            { key: 'onboard', type: 'workflow', scope: 'crm.customer.onboard' },
          ],
          policies: { view: { scope: 'workspace' }, delete: { scope: 'role', condition: 'admin' } },
          fieldPolicies: { email: { view: { scope: 'role' } } },
          governance: { tier: 'tier-1' },
        },
        {
          key: 'contact',
          name: 'Contact',
          pluralName: 'Contacts',
          fields: [
            { key: 'first_name', type: 'string', name: 'First name' },
            { key: 'last_name', type: 'string', name: 'Last name' },
            { key: 'born_on', type: 'date', name: 'Birthday' },
          ],
          relations: [
            { key: 'customer_id', relation: 'belongs_to', entity: 'customer', required: true },
            { key: 'manager_id', relation: 'self', kind: 'belongs_to' },
          ],
        },
        {
          key: 'invoice',
          name: 'Invoice',
          pluralName: 'Invoices',
          fields: [
            { key: 'number', type: 'string', name: 'Number' },
            { key: 'amount', type: 'number', name: 'Amount', display: { type: 'currency', currency: 'EUR' } },
            { key: 'paid', type: 'boolean', name: 'Paid' },
            { key: 'issued_at', type: 'datetime', name: 'Issued at' },
          ],
          relations: [{ key: 'customer_ref_id', relation: 'belongs_to', entity: 'customer' }],
          governance: {},
        },
      ],
      pages: [
        { key: 'dashboard', type: 'dashboard', title: 'Dashboard', path: '/dashboard' },
        { key: 'customer_list', type: 'entity-list', title: 'Customers', path: '/customers', entity: 'customer', menu: { label: 'Customers', order: 1 } },
        {
          key: 'customer_detail',
          type: 'entity-detail',
          title: 'Customer',
          path: '/customers/:id',
          entity: 'customer',
          dataContext: { entityKey: 'customer' },
        },
        { key: 'customer_create', type: 'entity-create', title: 'New Customer', path: '/customers/new', entity: 'customer' },
        { key: 'customer_edit', type: 'entity-edit', title: 'Edit Customer', path: '/customers/:id/edit', entity: 'customer' },
        {
          key: 'invoice_list',
          type: 'entity-list',
          title: 'Invoices',
          path: '/invoices',
          entity: 'invoice',
          dataProviders: [{ key: 'customers', entityKey: 'customer', mode: 'list', query: { pageSize: 50, sortDir: 'asc' } }],
        },
        { key: 'reports', type: 'custom', title: 'Reports', path: '/reports', options: { layout: 'wide' } },
      ],
      navigation: {
        items: [
          { type: 'page', key: 'nav_dashboard', pageKey: 'dashboard', label: 'Dashboard' },
          {
            type: 'group',
            key: 'sales',
            label: 'Sales',
            children: [
              { type: 'page', key: 'nav_customers', pageKey: 'customer_list' },
              { type: 'page', key: 'nav_invoices', pageKey: 'invoice_list' },
            ],
          },
        ],
      },
    },
  };
}
