/**
 * One case per semantic rule (and per message of a rule): a CRM manifest that breaks only that rule,
 * the exact `{ field, message }` list it yields, and a fix that makes the document valid again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateEntity, validateManifest, validatePage } from 'cellgate';
import { allRules } from '../../../src/contract/validate/rules/index.ts';
import { hasRepeats, repeatedValues, repeats } from '../../../src/contract/validate/rules/helpers.ts';
import { crmManifest } from './validate-fixtures.ts';

// Test documents are plain JSON edited in place, so they are typed loosely on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

interface RuleCase {
  rule: string;
  name: string;
  break: (m: Doc) => void;
  fix: (m: Doc) => void;
  errors: Array<[field: string, message: string]>;
}

const entity = (m: Doc, key: string): Doc => m.spec.entities.find((e: Doc) => e.key === key);
const page = (m: Doc, key: string): Doc => m.spec.pages.find((p: Doc) => p.key === key);
const capability = (m: Doc, key: string): Doc => entity(m, 'customer').capabilities.find((c: Doc) => c.key === key);
const input = (m: Doc, key: string): Doc => capability(m, 'assign_owner').input.find((i: Doc) => i.key === key);
const field = (m: Doc, key: string): Doc => entity(m, 'customer').fields.find((f: Doc) => f.key === key);
const geo = (m: Doc): Doc => field(m, 'address').fields.find((f: Doc) => f.key === 'geo');
const computed = (m: Doc, key: string): Doc => entity(m, 'customer').computed.find((c: Doc) => c.key === key);
const lifecycle = (m: Doc): Doc => entity(m, 'customer').lifecycle;
const navGroup = (m: Doc): Doc => m.spec.navigation.items[1];
const shell = (regions: Doc[]) => ({ key: 'shell', name: 'Shell', layout: { mode: 'sidebar-content' }, regions, outlet: { type: 'page', region: 'main' } });
const C = 'spec.entities[customer]';
const RESERVED = 'is reserved by the base entity and is automatically injected. Remove it from the manifest.';

const cases: RuleCase[] = [
  // manifest
  {
    rule: 'manifest.metadata-key',
    name: 'metadata.key not snake_case',
    break: (m) => (m.metadata.key = 'Bad-Key'),
    fix: (m) => (m.metadata.key = 'bad_key'),
    errors: [['metadata.key', 'metadata.key "Bad-Key" must be snake_case (e.g. "customer_portal")']],
  },
  {
    rule: 'manifest.spec-content',
    name: 'spec with no entities, pages or navigation (the landing page then dangles too)',
    break: (m) => {
      delete m.spec.entities;
      delete m.spec.pages;
      delete m.spec.navigation;
    },
    fix: (m) => (m.spec.pages = [{ key: 'dashboard', type: 'dashboard', title: 'Dashboard', path: '/' }]),
    errors: [
      ['spec', 'cell spec must define at least entities, pages, or navigation'],
      ['spec.mount.landingPage', 'landingPage "dashboard" does not reference a valid page key'],
    ],
  },
  {
    rule: 'manifest.mount-path',
    name: 'mountPath without leading slash',
    break: (m) => (m.spec.mount.mountPath = 'crm'),
    fix: (m) => (m.spec.mount.mountPath = '/sales'),
    errors: [['spec.mount.mountPath', 'mountPath must start with "/"']],
  },
  {
    rule: 'manifest.landing-page',
    name: 'landingPage names no page',
    break: (m) => (m.spec.mount.landingPage = 'home'),
    fix: (m) => (m.spec.mount.landingPage = 'reports'),
    errors: [['spec.mount.landingPage', 'landingPage "home" does not reference a valid page key']],
  },
  {
    rule: 'manifest.app-shell-regions',
    name: 'main region disabled',
    break: (m) => (m.spec.appShell = shell([{ key: 'main', enabled: false }])),
    fix: (m) => (m.spec.appShell.regions[0].enabled = true),
    errors: [['spec.appShell.regions', '"main" region must be enabled']],
  },
  {
    rule: 'manifest.app-shell-regions',
    name: 'no main region',
    break: (m) => (m.spec.appShell = shell([{ key: 'sidebar', enabled: true }])),
    fix: (m) => m.spec.appShell.regions.push({ key: 'main', enabled: true }),
    errors: [['spec.appShell.regions', 'there must be exactly one "main" region']],
  },
  {
    rule: 'manifest.app-shell-regions',
    name: 'two main regions',
    break: (m) =>
      (m.spec.appShell = shell([
        { key: 'main', enabled: true },
        { key: 'main', enabled: true },
      ])),
    fix: (m) => (m.spec.appShell.regions[1].key = 'aside'),
    errors: [
      ['spec.appShell.regions', 'region keys must be unique (duplicate: "main")'],
      ['spec.appShell.regions', 'there must be exactly one "main" region'],
    ],
  },
  // pages
  {
    rule: 'page.unique-keys',
    name: 'two pages share a key',
    break: (m) => m.spec.pages.push({ key: 'reports', type: 'custom', title: 'More', path: '/more' }),
    fix: (m) => (m.spec.pages[7].key = 'more_reports'),
    errors: [['spec.pages', 'page keys must be unique (duplicate: "reports")']],
  },
  {
    rule: 'page.unique-paths',
    name: 'two pages share a path',
    break: (m) => (page(m, 'reports').path = '/dashboard'),
    fix: (m) => (page(m, 'reports').path = '/reports'),
    errors: [['spec.pages', 'Duplicate page path: "/dashboard"']],
  },
  {
    rule: 'page.entity-required',
    name: 'entity-create page without entity',
    break: (m) => delete page(m, 'customer_create').entity,
    fix: (m) => (page(m, 'customer_create').entity = 'contact'),
    errors: [['spec.pages[customer_create].entity', 'Page type "entity-create" requires an entity key']],
  },
  {
    rule: 'page.entity-forbidden',
    name: 'dashboard page with entity',
    break: (m) => (page(m, 'dashboard').entity = 'customer'),
    fix: (m) => delete page(m, 'dashboard').entity,
    errors: [['spec.pages[dashboard].entity', 'Page type "dashboard" must not set an entity key']],
  },
  {
    rule: 'page.entity-exists',
    name: 'page entity unknown',
    break: (m) => (page(m, 'invoice_list').entity = 'bill'),
    fix: (m) => (page(m, 'invoice_list').entity = 'contact'),
    errors: [['spec.pages[invoice_list].entity', 'Page references unknown entity key: "bill"']],
  },
  {
    rule: 'page.entity-exists',
    name: 'dataContext entity unknown',
    break: (m) => (page(m, 'customer_detail').dataContext.entityKey = 'ghost'),
    fix: (m) => (page(m, 'customer_detail').dataContext.entityKey = 'customer'),
    errors: [['spec.pages[customer_detail].dataContext.entityKey', 'Page references unknown entity key: "ghost"']],
  },
  {
    rule: 'page.entity-exists',
    name: 'data provider entity unknown',
    break: (m) => (page(m, 'invoice_list').dataProviders[0].entityKey = 'ghost'),
    fix: (m) => (page(m, 'invoice_list').dataProviders[0].entityKey = 'contact'),
    errors: [['spec.pages[invoice_list].dataProviders[customers].entityKey', 'Page references unknown entity key: "ghost"']],
  },
  {
    rule: 'page.one-per-entity-type',
    name: 'two list pages of one entity',
    break: (m) => m.spec.pages.push({ key: 'customer_list_2', type: 'entity-list', title: 'All', path: '/all-customers', entity: 'customer' }),
    fix: (m) => (page(m, 'customer_list_2').entity = 'contact'),
    errors: [['spec.pages', 'Entity "customer" has 2 "entity-list" pages (customer_list, customer_list_2). Only one is allowed per entity.']],
  },
  // navigation
  {
    rule: 'navigation.page-exists',
    name: 'nav item names no page',
    break: (m) => (navGroup(m).children[1].pageKey = 'ghost'),
    fix: (m) => (navGroup(m).children[1].pageKey = 'reports'),
    errors: [['spec.navigation', 'Navigation references unknown page key: "ghost"']],
  },
  {
    rule: 'navigation.unique-keys',
    name: 'nav keys repeat inside a group',
    break: (m) => (navGroup(m).children[1].key = 'nav_dashboard'),
    fix: (m) => (navGroup(m).children[1].key = 'nav_inv'),
    errors: [['spec.navigation', 'navigation item key "nav_dashboard" must be unique across the full navigation tree']],
  },
  {
    rule: 'navigation.page-once',
    name: 'page referenced twice',
    break: (m) => (navGroup(m).children[1].pageKey = 'customer_list'),
    fix: (m) => (navGroup(m).children[1].pageKey = 'invoice_list'),
    errors: [['spec.navigation', 'pageKey "customer_list" is referenced multiple times in navigation']],
  },
  // entities
  {
    rule: 'entity.unique-keys',
    name: 'two entities share a key',
    break: (m) => m.spec.entities.push(structuredClone(entity(m, 'invoice'))),
    fix: (m) => (m.spec.entities[3].key = 'invoice_archive'),
    errors: [['spec.entities', 'entity keys must be unique (duplicate: "invoice")']],
  },
  {
    rule: 'field.unique-keys',
    name: 'duplicate field key',
    break: (m) => entity(m, 'customer').fields.push({ key: 'email', type: 'string', name: 'E-mail' }),
    fix: (m) => (entity(m, 'customer').fields[5].key = 'email_2'),
    errors: [[`${C}.fields[email]`, 'Duplicate field key: "email"']],
  },
  {
    rule: 'field.unique-keys',
    name: 'duplicate nested field key',
    break: (m) => field(m, 'address').fields.push({ key: 'city', type: 'string', name: 'Town' }),
    fix: (m) => (field(m, 'address').fields[3].key = 'town'),
    errors: [[`${C}.fields[address.city]`, 'Duplicate field key: "city"']],
  },
  {
    rule: 'field.enum-values',
    name: 'enum without values',
    break: (m) => (field(m, 'status').enumValues = []),
    fix: (m) => (field(m, 'status').enumValues = ['lead']),
    errors: [[`${C}.fields[status]`, 'Enum field must have non-empty enumValues']],
  },
  {
    rule: 'field.max-depth',
    name: 'object field at level 3',
    break: (m) => geo(m).fields.push({ key: 'deep', type: 'object', name: 'Deep', fields: [] }),
    fix: (m) => (geo(m).fields[1].type = 'string'),
    errors: [[`${C}.fields[address.geo.deep]`, 'Object field "deep" exceeds max nesting depth of 3']],
  },
  {
    rule: 'field.not-base',
    name: 'field named id',
    break: (m) => entity(m, 'contact').fields.push({ key: 'id', type: 'string', name: 'Id' }),
    fix: (m) => (entity(m, 'contact').fields[3].key = 'external_id'),
    errors: [['spec.entities[contact].fields[id]', `Field key "id" ${RESERVED}`]],
  },
  {
    rule: 'field.not-base',
    name: 'nested field named created_at',
    break: (m) => field(m, 'address').fields.push({ key: 'created_at', type: 'datetime', name: 'Created' }),
    fix: (m) => (field(m, 'address').fields[3].key = 'added_at'),
    errors: [[`${C}.fields[address.created_at]`, `Field key "created_at" ${RESERVED}`]],
  },
  {
    rule: 'relation.unique-keys',
    name: 'duplicate relation key',
    break: (m) => entity(m, 'contact').relations.push({ key: 'customer_id', relation: 'belongs_to', entity: 'invoice' }),
    fix: (m) => (entity(m, 'contact').relations[2].key = 'invoice_id'),
    errors: [['spec.entities[contact].relations[customer_id]', 'Duplicate relation key: "customer_id"']],
  },
  {
    rule: 'relation.no-conflict',
    name: 'relation key equals a field key',
    break: (m) => entity(m, 'invoice').relations.push({ key: 'number', relation: 'has_many', entity: 'contact', foreignKey: 'invoice_id' }),
    fix: (m) => (entity(m, 'invoice').relations[1].key = 'contacts'),
    errors: [['spec.entities[invoice].relations[number]', 'Relation key "number" conflicts with a field key of the same name']],
  },
  {
    rule: 'relation.no-conflict',
    name: 'relation key equals a base field',
    break: (m) => entity(m, 'invoice').relations.push({ key: 'version', relation: 'has_many', entity: 'contact', foreignKey: 'invoice_id' }),
    fix: (m) => (entity(m, 'invoice').relations[1].key = 'contacts'),
    errors: [['spec.entities[invoice].relations[version]', 'Relation key "version" conflicts with a reserved base entity field key']],
  },
  {
    rule: 'relation.id-suffix',
    name: 'belongs_to key without _id',
    break: (m) => (entity(m, 'contact').relations[0].key = 'customer'),
    fix: (m) => (entity(m, 'contact').relations[0].key = 'account_id'),
    errors: [['spec.entities[contact].relations[customer]', 'belongs_to relation key must end with "_id"']],
  },
  {
    rule: 'relation.id-suffix',
    name: 'self key without _id',
    break: (m) => (entity(m, 'contact').relations[1].key = 'manager'),
    fix: (m) => (entity(m, 'contact').relations[1].key = 'boss_id'),
    errors: [['spec.entities[contact].relations[manager]', 'self relation key must end with "_id"']],
  },
  {
    rule: 'relation.target-exists',
    name: 'belongs_to target not in the manifest',
    break: (m) => (entity(m, 'invoice').relations[0].entity = 'client'),
    fix: (m) => (entity(m, 'invoice').relations[0].entity = 'contact'),
    errors: [['spec.entities[invoice].relations[customer_ref_id]', 'Relation "customer_ref_id" references unknown entity key: "client"']],
  },
  {
    rule: 'relation.target-exists',
    name: 'polymorphic allowed entity not in the manifest',
    break: (m) =>
      entity(m, 'invoice').relations.push({
        key: 'subject',
        relation: 'polymorphic',
        typeField: 'subject_type',
        idField: 'subject_ref',
        allowedEntities: ['customer', 'ghost'],
      }),
    fix: (m) => (entity(m, 'invoice').relations[1].allowedEntities = ['customer', 'contact']),
    errors: [['spec.entities[invoice].relations[subject]', 'Relation "subject" references unknown entity key: "ghost"']],
  },
  {
    rule: 'computed.unique-keys',
    name: 'duplicate computed key',
    break: (m) => entity(m, 'customer').computed.push({ ...computed(m, 'display_label') }),
    fix: (m) => (entity(m, 'customer').computed[2].key = 'display_label_2'),
    errors: [[`${C}.computed[display_label]`, 'Duplicate computed field key: "display_label"']],
  },
  {
    rule: 'computed.unique-keys',
    name: 'computed key equals a field key',
    break: (m) => (computed(m, 'display_label').key = 'name'),
    fix: (m) => (computed(m, 'name').key = 'label'),
    errors: [[`${C}.computed[name]`, 'Computed field key "name" conflicts with a field key of the same name']],
  },
  {
    rule: 'computed.unique-keys',
    name: 'computed key equals a relation key',
    break: (m) => (computed(m, 'display_label').key = 'invoices'),
    fix: (m) => (computed(m, 'invoices').key = 'label'),
    errors: [[`${C}.computed[invoices]`, 'Computed field key "invoices" conflicts with a relation key of the same name']],
  },
  {
    rule: 'computed.unique-keys',
    name: 'computed key equals a base field',
    break: (m) => (computed(m, 'display_label').key = 'updated_at'),
    fix: (m) => (computed(m, 'updated_at').key = 'label'),
    errors: [[`${C}.computed[updated_at]`, 'Computed field key "updated_at" conflicts with a reserved base entity field key']],
  },
  {
    rule: 'computed.aggregation',
    name: 'aggregation over an unknown relation',
    break: (m) => (computed(m, 'invoice_count').relation = 'payments'),
    fix: (m) => (computed(m, 'invoice_count').relation = 'invoices'),
    errors: [[`${C}.computed[invoice_count].relation`, 'Computed field "invoice_count" aggregates unknown relation "payments"']],
  },
  {
    rule: 'computed.aggregation',
    name: 'sum without field',
    break: (m) => (computed(m, 'invoice_count').operation = 'sum'),
    fix: (m) => (computed(m, 'invoice_count').field = 'amount'),
    errors: [[`${C}.computed[invoice_count].field`, 'field is required when operation is "sum"']],
  },
  {
    rule: 'computed.aggregation',
    name: 'count typed string',
    break: (m) => (computed(m, 'invoice_count').type = 'string'),
    fix: (m) => (computed(m, 'invoice_count').type = 'number'),
    errors: [[`${C}.computed[invoice_count].type`, 'type must be "number" when operation is "count"']],
  },
  {
    rule: 'computed.aggregation',
    name: 'max typed boolean',
    break: (m) => Object.assign(computed(m, 'invoice_count'), { operation: 'max', field: 'issued_at', type: 'boolean' }),
    fix: (m) => (computed(m, 'invoice_count').type = 'datetime'),
    errors: [[`${C}.computed[invoice_count].type`, 'type must be one of number, date, datetime, string when operation is "max"']],
  },
  {
    rule: 'computed.dependencies',
    name: 'a dependency listed twice',
    break: (m) => computed(m, 'display_label').dependencies.push('name'),
    fix: (m) => computed(m, 'display_label').dependencies.pop(),
    errors: [[`${C}.computed[display_label].dependencies`, 'dependencies must be unique']],
  },
  {
    rule: 'lifecycle.field',
    name: 'lifecycle field undeclared',
    break: (m) => (lifecycle(m).field = 'state'),
    fix: (m) => (lifecycle(m).field = 'status'),
    errors: [[`${C}.lifecycle.field`, 'lifecycle.field "state" does not reference a declared field key']],
  },
  {
    rule: 'lifecycle.states',
    name: 'initial not a state',
    break: (m) => (lifecycle(m).initial = 'new'),
    fix: (m) => (lifecycle(m).initial = 'active'),
    errors: [[`${C}.lifecycle.initial`, 'initial must be one of the declared lifecycle states']],
  },
  {
    rule: 'lifecycle.states',
    name: 'states repeat',
    break: (m) => lifecycle(m).states.push('lead'),
    fix: (m) => lifecycle(m).states.pop(),
    errors: [[`${C}.lifecycle.states`, 'states must be unique']],
  },
  {
    rule: 'lifecycle.states',
    name: 'transition from an unknown state',
    break: (m) => (lifecycle(m).transitions[0].from = 'ghost'),
    fix: (m) => (lifecycle(m).transitions[0].from = 'inactive'),
    errors: [[`${C}.lifecycle.transitions[activate].from`, 'transition.from must be one of: lead, active, inactive']],
  },
  {
    rule: 'lifecycle.states',
    name: 'transition to an unknown state',
    break: (m) => (lifecycle(m).transitions[1].to = 'gone'),
    fix: (m) => (lifecycle(m).transitions[1].to = 'lead'),
    errors: [[`${C}.lifecycle.transitions[deactivate].to`, 'transition.to must be one of: lead, active, inactive']],
  },
  {
    rule: 'lifecycle.states',
    name: 'transition keys repeat',
    break: (m) => lifecycle(m).transitions.push({ key: 'activate', from: 'inactive', to: 'active' }),
    fix: (m) => (lifecycle(m).transitions[2].key = 'reactivate'),
    errors: [[`${C}.lifecycle.transitions`, 'transition keys must be unique (duplicate: "activate")']],
  },
  {
    rule: 'lifecycle.states',
    name: 'the same move twice',
    break: (m) => lifecycle(m).transitions.push({ key: 'promote', from: 'lead', to: 'active' }),
    fix: (m) => (lifecycle(m).transitions[2].from = 'inactive'),
    errors: [[`${C}.lifecycle.transitions[promote]`, 'duplicate transition "lead" -> "active"']],
  },
  {
    rule: 'lifecycle.transition-lists',
    name: 'a guard and a hook listed twice',
    break: (m) => {
      lifecycle(m).transitions[0].guards.push('has_email');
      lifecycle(m).transitions[0].hooks.push('notify_owner');
    },
    fix: (m) => {
      lifecycle(m).transitions[0].guards.pop();
      lifecycle(m).transitions[0].hooks.pop();
    },
    errors: [
      [`${C}.lifecycle.transitions[activate].guards`, 'guards must be unique'],
      [`${C}.lifecycle.transitions[activate].hooks`, 'hooks must be unique'],
    ],
  },
  {
    rule: 'events.exclude',
    name: 'exclude names an unknown field',
    break: (m) => (entity(m, 'customer').events.exclude = ['phone']),
    fix: (m) => (entity(m, 'customer').events.exclude = ['email']),
    errors: [[`${C}.events.exclude`, 'events.exclude field "phone" does not reference a declared field key']],
  },
  {
    rule: 'events.exclude',
    name: 'exclude repeats a field',
    break: (m) => (entity(m, 'customer').events.exclude = ['notes', 'notes']),
    fix: (m) => entity(m, 'customer').events.exclude.pop(),
    errors: [[`${C}.events.exclude`, 'exclude must contain unique field names']],
  },
  {
    rule: 'field-policies.keys',
    name: 'field policy for an unknown field',
    break: (m) => (entity(m, 'customer').fieldPolicies = { phone: { view: { scope: 'role' } } }),
    fix: (m) => (entity(m, 'customer').fieldPolicies = { notes: { view: { scope: 'role' } } }),
    errors: [[`${C}.fieldPolicies`, 'fieldPolicies key "phone" does not reference a declared field key']],
  },
  {
    rule: 'field-policies.keys',
    name: 'field policy for a base field',
    break: (m) => (entity(m, 'customer').fieldPolicies = { id: { view: { scope: 'role' } } }),
    fix: (m) => delete entity(m, 'customer').fieldPolicies,
    errors: [[`${C}.fieldPolicies`, 'fieldPolicies key "id" conflicts with a reserved base entity field key']],
  },
  {
    rule: 'field-policies.keys',
    name: 'empty field policy',
    break: (m) => (entity(m, 'customer').fieldPolicies = { email: {} }),
    fix: (m) => (entity(m, 'customer').fieldPolicies.email.update = { scope: 'owner' }),
    errors: [[`${C}.fieldPolicies[email]`, 'field policy override must define at least view or update']],
  },
  {
    rule: 'validation.non-empty',
    name: 'empty validation block',
    break: (m) => (entity(m, 'customer').validation = {}),
    fix: (m) => (entity(m, 'customer').validation.entityRules = []),
    errors: [[`${C}.validation`, 'validation must define at least entityRules or serverValidators']],
  },
  // capabilities
  {
    rule: 'capability.unique-keys',
    name: 'duplicate capability key',
    break: (m) => entity(m, 'customer').capabilities.push({ key: 'export_csv', type: 'export', format: 'pdf' }),
    fix: (m) => (entity(m, 'customer').capabilities[5].key = 'export_pdf'),
    errors: [[`${C}.capabilities[export_csv]`, 'Duplicate capability key: "export_csv"']],
  },
  {
    rule: 'capability.unique-keys',
    name: 'capability key equals a field key',
    break: (m) => (capability(m, 'onboard').key = 'email'),
    fix: (m) => (capability(m, 'email').key = 'onboard'),
    errors: [[`${C}.capabilities[email]`, 'Capability key "email" conflicts with a field key']],
  },
  {
    rule: 'capability.unique-keys',
    name: 'capability key equals a base field',
    break: (m) => (capability(m, 'onboard').key = 'version'),
    fix: (m) => (capability(m, 'version').key = 'onboard'),
    errors: [[`${C}.capabilities[version]`, 'Capability key "version" conflicts with a reserved base entity field key']],
  },
  {
    rule: 'capability.transition',
    name: 'unknown lifecycle transition',
    break: (m) => (capability(m, 'activate').transition = 'archive'),
    fix: (m) => (capability(m, 'activate').transition = 'deactivate'),
    errors: [[`${C}.capabilities[activate]`, 'Capability "activate" references unknown lifecycle transition "archive"']],
  },
  {
    rule: 'capability.transition',
    name: 'transition capability without lifecycle',
    break: (m) => (entity(m, 'contact').capabilities = [{ key: 'close', type: 'transition', transition: 'close' }]),
    fix: (m) => (entity(m, 'contact').capabilities[0] = { key: 'close', type: 'workflow' }),
    errors: [['spec.entities[contact].capabilities[close]', 'Capability "close" references transition "close" but entity has no lifecycle defined']],
  },
  {
    rule: 'capability.unique-inputs',
    name: 'duplicate input key',
    break: (m) => capability(m, 'assign_owner').input.push({ key: 'owner', type: 'string' }),
    fix: (m) => (capability(m, 'assign_owner').input[2].key = 'owner_note'),
    errors: [[`${C}.capabilities[assign_owner].input[owner]`, 'Duplicate input key: "owner"']],
  },
  {
    rule: 'capability.select-options',
    name: 'select without options',
    break: (m) => {
      delete input(m, 'priority').options;
      delete input(m, 'priority').defaultValue;
    },
    fix: (m) => (input(m, 'priority').options = ['normal']),
    errors: [[`${C}.capabilities[assign_owner].input[priority].options`, 'Select input "priority" must declare at least one option']],
  },
  {
    rule: 'capability.select-options',
    name: 'select options repeat',
    break: (m) => (input(m, 'priority').options = ['low', 'low']),
    fix: (m) => (input(m, 'priority').options = ['low', 'high']),
    errors: [[`${C}.capabilities[assign_owner].input[priority].options`, 'options must be unique']],
  },
  {
    rule: 'capability.select-options',
    name: 'select default not an option',
    break: (m) => (input(m, 'priority').defaultValue = 'urgent'),
    fix: (m) => (input(m, 'priority').defaultValue = 'high'),
    errors: [[`${C}.capabilities[assign_owner].input[priority].defaultValue`, 'defaultValue must be one of the declared options']],
  },
  {
    rule: 'capability.entity-input',
    name: 'entity input without target',
    break: (m) => delete input(m, 'owner').entity,
    fix: (m) => (input(m, 'owner').entity = 'contact'),
    errors: [[`${C}.capabilities[assign_owner].input[owner].entity`, 'Entity input "owner" must specify the target entity key']],
  },
  {
    rule: 'capability.entity-input',
    name: 'entity input target not in the manifest',
    break: (m) => (input(m, 'owner').entity = 'employee'),
    fix: (m) => (input(m, 'owner').entity = 'contact'),
    errors: [[`${C}.capabilities[assign_owner].input[owner].entity`, 'Entity input "owner" references unknown entity key: "employee"']],
  },
  // roles
  {
    rule: 'role.unique-keys',
    name: 'two roles share a key',
    break: (m) => m.spec.roles.push({ key: 'admin', name: 'Admin 2', scopes: ['x'] }),
    fix: (m) => (m.spec.roles[2].key = 'auditor'),
    errors: [['spec.roles', 'role keys must be unique (duplicate: "admin")']],
  },
  {
    rule: 'role.unique-scopes',
    name: 'scopes repeat',
    break: (m) => m.spec.roles[0].scopes.push('crm.admin'),
    fix: (m) => (m.spec.roles[0].scopes[1] = 'crm.audit'),
    errors: [['spec.roles[admin].scopes', 'scopes must be unique']],
  },
  {
    rule: 'role.unique-scopes',
    name: 'identity mappings repeat',
    break: (m) => (m.spec.roles[1].identityMappings = ['g', 'g']),
    fix: (m) => (m.spec.roles[1].identityMappings = ['g']),
    errors: [['spec.roles[sales].identityMappings', 'identityMappings must be unique']],
  },
];

describe('semantic rules', () => {
  it('the CRM fixture is valid', () => {
    expect(validateManifest(crmManifest())).toEqual({ valid: true, errors: [] });
  });

  it.each(cases)('$rule: $name', (c) => {
    const doc = crmManifest() as Doc;
    c.break(doc);
    expect(validateManifest(doc)).toEqual({ valid: false, errors: c.errors.map(([field, message]) => ({ field, message })) });
    c.fix(doc);
    expect(validateManifest(doc)).toEqual({ valid: true, errors: [] });
  });

  it('every rule with a check has at least one case, and every case names a real rule', () => {
    const checked = allRules.filter((rule) => rule.check !== undefined).map((rule) => rule.id);
    const covered = new Set(cases.map((c) => c.rule));
    expect(checked.filter((id) => !covered.has(id))).toEqual([]);
    expect([...covered].filter((id) => !checked.includes(id))).toEqual([]);
  });

  it('rule ids are unique', () => {
    const ids = allRules.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('structural errors short-circuit the semantic rules', () => {
    const doc = crmManifest() as Doc;
    doc.metadata.key = 'Bad-Key'; // semantic
    doc.spec.pages[0].title = 42; // structural
    expect(validateManifest(doc)).toEqual({ valid: false, errors: [{ field: 'spec.pages.0.title', message: 'Expected string, received number' }] });
  });
});

describe('validateEntity', () => {
  it('accepts each entity of the fixture alone', () => {
    for (const e of crmManifest().spec.entities) expect(validateEntity(e)).toEqual({ valid: true, errors: [] });
  });

  it('runs the entity rules with manifest paths', () => {
    const customer = entity(crmManifest(), 'customer');
    customer.fields.push({ key: 'id', type: 'string', name: 'Id' });
    expect(validateEntity(customer)).toEqual({
      valid: false,
      errors: [{ field: 'spec.entities[customer].fields[id]', message: `Field key "id" ${RESERVED}` }],
    });
  });

  it('skips the rules that need the whole manifest', () => {
    const invoice = entity(crmManifest(), 'invoice');
    invoice.relations[0].entity = 'client';
    expect(validateEntity(invoice)).toEqual({ valid: true, errors: [] });
  });

  it('reports structural errors with dot paths relative to the entity', () => {
    expect(validateEntity({ key: 'x', name: 'X', pluralName: 'Xs', fields: [{ key: 'a', type: 'enum' }] })).toEqual({
      valid: false,
      errors: [{ field: 'fields.0.name', message: 'Required' }],
    });
  });
});

describe('validatePage', () => {
  it('accepts each page of the fixture alone', () => {
    for (const p of crmManifest().spec.pages) expect(validatePage(p)).toEqual({ valid: true, errors: [] });
  });

  it('checks the rules of a single page but not references, with paths relative to the page', () => {
    expect(validatePage({ key: 'list', type: 'entity-list', title: 'List', path: '/list' })).toEqual({
      valid: false,
      errors: [{ field: 'entity', message: 'Page type "entity-list" requires an entity key' }],
    });
    expect(validatePage({ key: 'home', type: 'dashboard', title: 'Home', path: '/', entity: 'customer' })).toEqual({
      valid: false,
      errors: [{ field: 'entity', message: 'Page type "dashboard" must not set an entity key' }],
    });
    expect(validatePage({ key: 'list', type: 'entity-list', title: 'List', path: '/list', entity: 'anything' }).valid).toBe(true);
  });

  it('reports a path without a leading "/" as a structural error at `path` (the public wording)', () => {
    expect(validatePage({ key: 'list', type: 'entity-list', title: 'List', path: 'list' })).toEqual({
      valid: false,
      errors: [{ field: 'path', message: 'path must start with "/"' }],
    });
    expect(validatePage({ key: 'list', type: 'entity-list', title: 'List', path: '' })).toEqual({
      valid: false,
      errors: [{ field: 'path', message: 'String must contain at least 1 character(s)' }],
    });
  });

  it('reports a manifest page path without a leading "/" at `spec.pages.<index>.path`, structurally', () => {
    const doc = crmManifest();
    doc.spec.pages[0]!.path = 'dashboard';
    expect(validateManifest(doc)).toEqual({ valid: false, errors: [{ field: 'spec.pages.0.path', message: 'path must start with "/"' }] });
  });
});

describe('repeated values (the duplicate rules)', () => {
  it('lists each repeated value once, in the order of its first repeat, for short and long lists', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 70 }), (values) => {
        expect(repeatedValues(values)).toEqual([...new Set(repeats(values))]);
        expect(hasRepeats(values)).toBe(new Set(values).size < values.length);
      }),
      { numRuns: 500 },
    );
    expect(repeatedValues(['b', 'a', 'a', 'b', 'a'])).toEqual(['a', 'b']);
  });
});
