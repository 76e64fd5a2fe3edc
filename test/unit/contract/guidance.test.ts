/**
 * Guidance (docs/decisions/A14.md–docs/decisions/A16.md): domain matching on whole words, generated pages with real plurals,
 * relation suggestions, and error explanations for messages our validators really produce.
 */
import { describe, expect, it } from 'vitest';
import {
  ExplainErrorsResultSchema,
  RecommendResultSchema,
  SuggestPagesInputSchema,
  SuggestPagesResultSchema,
  SuggestRelationsInputSchema,
  explainErrors,
  pluralize,
  recommend,
  suggestPages,
  suggestRelations,
} from '../../../src/contract/guidance/index.ts';
import { getExample, validateManifest, validatePage, type ValidationIssue } from 'cellgate';
import { resourcePathName } from '../../../src/entity-document/naming.ts';

const NO_MATCH = { matchedDomain: null, suggestedEntities: [], suggestedPages: [], suggestedRelations: [], suggestedNavigation: { items: [] } };

/** The 19 MCP tools of docs/contract-conventions.md. */
const MCP_TOOLS = new Set([
  'get_manifest_schema',
  'get_entity_definition_schema',
  'get_page_schema',
  'get_capability_schema',
  'list_primitives',
  'get_primitive_contract',
  'list_examples',
  'get_example_manifest',
  'get_primitive_examples',
  'scaffold_primitive',
  'validate_primitive_props',
  'recommend_manifest_structure',
  'suggest_page_set_for_entities',
  'suggest_relations',
  'explain_validation_errors',
  'validate_manifest',
  'validate_entity',
  'validate_page',
  'normalize_manifest',
]);

describe('recommend', () => {
  it.each([
    ['I need a simple CRM with customers and contacts', 'crm'],
    ['A helpdesk where support agents answer tickets', 'ticket'],
    ['Track stock across our warehouses', 'inventory'],
    ['Plan sprints and tasks on a kanban board', 'project'],
    ['HR portal for employees and their departments', 'hr'],
    ['An online shop taking orders and payments', 'order'],
    ['Our e-commerce site', 'order'],
    ['EMPLOYEES requesting LEAVE', 'hr'],
    ['bugs and incidents', 'ticket'],
    ['inventories of product categories', 'inventory'],
  ])('%j → %s', (goal, domain) => {
    const result = recommend(goal);
    expect(RecommendResultSchema.parse(result)).toEqual(result);
    expect(result.matchedDomain).toBe(domain);
    expect(result.suggestedEntities.length).toBe(3);
    expect(result.suggestedPages[0]).toMatchObject({ key: 'dashboard' });
    expect(result.suggestedPages).toHaveLength(1 + 3 * 3);
  });

  it.each([
    'three little things', // "hr" inside "three"
    'a border around it', // "order" inside "border"
    'the workshop schedule', // "shop" inside "workshop"
    'an ideal world', // "deal" inside "ideal"
    'steam engines', // "team" inside "steam"
    'shrink the throughput', // "hr" inside "shrink" and "through"
    '',
    'something else entirely',
  ])('does not match substrings: %j', (goal) => {
    expect(recommend(goal)).toEqual(NO_MATCH);
  });

  it('picks the template with most keyword hits, the earlier one on a tie', () => {
    expect(recommend('customer tickets, support and incidents').matchedDomain).toBe('ticket');
    expect(recommend('customer tickets').matchedDomain).toBe('crm');
  });

  it('suggests the template relations and pages that validate', () => {
    const result = recommend('inventory of products per warehouse');
    expect(result.suggestedRelations).toEqual([
      { source: 'stock_level', kind: 'belongs_to', target: 'product', reason: expect.any(String) },
      { source: 'stock_level', kind: 'belongs_to', target: 'warehouse', reason: expect.any(String) },
    ]);
    expect(result.suggestedPages.map((page) => page.path)).toContain('/stock-levels');
    for (const page of result.suggestedPages) expect(validatePage(page), page.key).toEqual({ valid: true, errors: [] });
  });

  it.each(['crm', 'ticket', 'inventory', 'project', 'hr', 'order'])('a manifest assembled from the %s recommendation validates', (domain) => {
    const goal = { crm: 'crm', ticket: 'ticket', inventory: 'inventory', project: 'project', hr: 'hr', order: 'order' }[domain]!;
    const result = recommend(goal);
    expect(result.matchedDomain).toBe(domain);
    const entities = result.suggestedEntities.map((entity) => ({
      key: entity.key,
      name: entity.name,
      pluralName: entity.pluralName,
      description: entity.reason,
      fields: entity.suggestedFields.map((field) => ({ key: field, type: 'string', name: field })),
      relations: result.suggestedRelations
        .filter((relation) => relation.source === entity.key)
        .map((relation) => ({ key: `${relation.target}_id`, relation: relation.kind, entity: relation.target })),
    }));
    const manifest = {
      apiVersion: 'platform/v1alpha1',
      kind: 'Cell',
      metadata: { key: `${domain}_app`, name: domain, version: '0.1.0' },
      spec: { mount: { mountPath: `/${domain}`, landingPage: 'dashboard' }, entities, pages: result.suggestedPages, navigation: result.suggestedNavigation },
    };
    expect(validateManifest(manifest)).toEqual({ valid: true, errors: [] });
  });
});

describe('suggestPages', () => {
  it('puts the dashboard first, then list, detail and create per entity, with real plurals', () => {
    const result = suggestPages(['category', 'stock_level']);
    expect(SuggestPagesResultSchema.parse(result)).toEqual(result);
    expect(result.pages).toEqual([
      { key: 'dashboard', type: 'dashboard', title: 'Dashboard', path: '/dashboard' },
      { key: 'category_list', type: 'entity-list', title: 'Categories', path: '/categories', entity: 'category' },
      { key: 'category_detail', type: 'entity-detail', title: 'Category Detail', path: '/categories/:id', entity: 'category' },
      { key: 'category_create', type: 'entity-create', title: 'New Category', path: '/categories/new', entity: 'category' },
      { key: 'stock_level_list', type: 'entity-list', title: 'Stock Levels', path: '/stock-levels', entity: 'stock_level' },
      { key: 'stock_level_detail', type: 'entity-detail', title: 'Stock Level Detail', path: '/stock-levels/:id', entity: 'stock_level' },
      { key: 'stock_level_create', type: 'entity-create', title: 'New Stock Level', path: '/stock-levels/new', entity: 'stock_level' },
    ]);
    expect(result.navigation).toEqual({
      items: [
        { type: 'page', key: 'nav_dashboard', pageKey: 'dashboard', label: 'Dashboard' },
        { type: 'page', key: 'nav_category_list', pageKey: 'category_list', label: 'Categories' },
        { type: 'page', key: 'nav_stock_level_list', pageKey: 'stock_level_list', label: 'Stock Levels' },
      ],
    });
  });

  it('gives only the dashboard for no entities', () => {
    expect(suggestPages([])).toEqual({
      pages: [{ key: 'dashboard', type: 'dashboard', title: 'Dashboard', path: '/dashboard' }],
      navigation: { items: [{ type: 'page', key: 'nav_dashboard', pageKey: 'dashboard', label: 'Dashboard' }] },
    });
  });

  it.each([
    ['customer', 'customers'],
    ['category', 'categories'],
    ['status', 'statuses'],
    ['address', 'addresses'],
    ['box', 'boxes'],
    ['branch', 'branches'],
    ['person', 'people'],
    ['child', 'children'],
    ['day', 'days'],
    ['key', 'keys'],
    ['shelf', 'shelves'],
    ['photo', 'photos'],
    ['hero', 'heroes'],
    ['staff', 'staff'],
    ['analysis', 'analyses'],
    ['leaf', 'leaves'],
    ['wolf', 'wolves'],
    ['diagnosis', 'diagnoses'],
    ['cargo', 'cargoes'],
  ])('pluralizes %s as %s, as governed resource paths do', (word, plural) => {
    expect(pluralize(word)).toBe(plural);
    // One plural rule in the package: a generated page path and a governed resource path agree.
    expect(resourcePathName(word[0]!.toUpperCase() + word.slice(1))).toBe(plural);
  });

  it('builds pages that each validate, and a manifest around them that validates', () => {
    const { pages, navigation } = suggestPages(['person', 'company_branch']);
    expect(pages.map((page) => page.path)).toEqual([
      '/dashboard',
      '/people',
      '/people/:id',
      '/people/new',
      '/company-branches',
      '/company-branches/:id',
      '/company-branches/new',
    ]);
    for (const page of pages) expect(validatePage(page), page.key).toEqual({ valid: true, errors: [] });
    const entity = (key: string, name: string, pluralName: string) => ({ key, name, pluralName, fields: [{ key: 'name', type: 'string', name: 'Name' }] });
    const manifest = {
      apiVersion: 'platform/v1alpha1',
      kind: 'Cell',
      metadata: { key: 'people', name: 'People', version: '1.0.0' },
      spec: {
        mount: { mountPath: '/', landingPage: 'dashboard' },
        entities: [entity('person', 'Person', 'People'), entity('company_branch', 'Company Branch', 'Company Branches')],
        pages,
        navigation,
      },
    };
    expect(validateManifest(manifest)).toEqual({ valid: true, errors: [] });
  });

  it('request schema: snake_case keys, unique, an array', () => {
    expect(SuggestPagesInputSchema.safeParse({ entities: ['customer', 'stock_level'] }).success).toBe(true);
    expect(SuggestPagesInputSchema.safeParse({ entities: ['customer', 'customer'] }).error?.issues[0]?.message).toBe('Entity keys must be unique');
    expect(SuggestPagesInputSchema.safeParse({ entities: ['Customer'] }).success).toBe(false);
    expect(SuggestPagesInputSchema.safeParse({ entities: 'customer' }).success).toBe(false);
    expect(SuggestPagesInputSchema.safeParse({}).success).toBe(false);
  });
});

describe('suggestRelations', () => {
  it('turns <entity>_id fields into belongs_to relations from the holder', () => {
    expect(
      suggestRelations([
        { key: 'invoice', fields: ['number', 'customer_id', 'project_id'] },
        { key: 'customer', fields: ['name'] },
      ]),
    ).toEqual([
      {
        source: 'invoice',
        kind: 'belongs_to',
        target: 'customer',
        reason: 'Field "customer_id" holds the id of a customer, so each invoice belongs to one customer.',
      },
    ]);
  });

  it('detects a self-reference', () => {
    expect(suggestRelations([{ key: 'employee', fields: ['employee_id'] }])).toEqual([
      { source: 'employee', kind: 'belongs_to', target: 'employee', reason: expect.stringContaining('self-reference') },
    ]);
  });

  it('adds the template relations between input entities, without fields', () => {
    expect(suggestRelations([{ key: 'order' }, { key: 'customer' }, { key: 'order_item' }])).toEqual([
      { source: 'order', kind: 'belongs_to', target: 'customer', reason: 'Each order is placed by one customer.' },
      { source: 'order_item', kind: 'belongs_to', target: 'order', reason: 'Each item is a line of one order.' },
    ]);
  });

  it('reports each source/target pair once', () => {
    const result = suggestRelations([{ key: 'order', fields: ['customer_id', 'customer_id'] }, { key: 'customer' }]);
    expect(result).toEqual([{ source: 'order', kind: 'belongs_to', target: 'customer', reason: expect.stringContaining('customer_id') }]);
  });

  it('returns an empty list when nothing relates', () => {
    expect(suggestRelations([{ key: 'note', fields: ['tenant_id', 'body'] }, { key: 'tag' }])).toEqual([]);
    expect(suggestRelations([])).toEqual([]);
  });

  it('request schema: fields optional, keys snake_case', () => {
    expect(SuggestRelationsInputSchema.safeParse({ entities: [{ key: 'order' }] }).success).toBe(true);
    expect(SuggestRelationsInputSchema.safeParse({ entities: [{ key: 'order', fields: 'customer_id' }] }).success).toBe(false);
    expect(SuggestRelationsInputSchema.safeParse({ entities: [{ fields: [] }] }).success).toBe(false);
  });
});

describe('explainErrors', () => {
  // `any` on purpose: each case reaches into the example to break one thing, shape unchecked.
  type Manifest = Record<string, any>;
  const crm = (change: (m: Manifest) => void = () => {}): Manifest => {
    const manifest = getExample('crm-manifest') as Manifest;
    change(manifest);
    return manifest;
  };
  const page = (change: Record<string, unknown>) => validatePage({ key: 'a', type: 'dashboard', title: 'A', path: '/a', ...change });

  /** Each case: a document broken one way, and a phrase only the intended pattern's fix contains. */
  const cases: [string, () => { errors: ValidationIssue[] }, string][] = [
    ['missing apiVersion', () => validateManifest({ ...crm(), apiVersion: undefined }), 'apiVersion: platform/v1alpha1'],
    ['wrong kind', () => validateManifest({ ...crm(), kind: 'App' }), 'kind: Cell'],
    ['missing member', () => validateManifest({ ...crm(), metadata: undefined }), 'Add the required member `metadata` to the document root'],
    ['unknown member', () => validateManifest({ ...crm(), extra: true }), "Remove or rename 'extra'"],
    ['bad discriminator', () => validateManifest(crm((m) => void (m.spec.entities[1].relations[0].relation = 'owns'))), 'to one of'],
    ['bad enum value', () => page({ type: 'wizard' }), "Use one of 'entity-list'"],
    ['wrong type', () => page({ title: 3 }), 'a value of type string instead of number'],
    ['empty string', () => page({ key: '' }), 'may not be empty'],
    ['snake_case key', () => validateManifest(crm((m) => void (m.metadata.key = 'Bad-Key'))), 'snake_case'],
    ['landing page', () => validateManifest(crm((m) => void (m.spec.mount.landingPage = 'home'))), 'spec.mount.landingPage'],
    ['page to unknown entity', () => validateManifest(crm((m) => void (m.spec.pages[1].entity = 'ghost'))), 'Add an entity with key "ghost"'],
    ['duplicate page path', () => validateManifest(crm((m) => void (m.spec.pages[1].path = '/dashboard'))), 'unique key and path'],
    ['page path slash', () => page({ path: 'a' }), 'with "/"'],
    ['navigation to unknown page', () => validateManifest(crm((m) => void (m.spec.navigation.items[0].pageKey = 'ghost'))), 'existing page key'],
    [
      'reserved base field',
      () => validateManifest(crm((m) => void m.spec.entities[0].fields.push({ key: 'id', type: 'string', name: 'Id' }))),
      'base fields are added',
    ],
    ['belongs_to naming', () => validateManifest(crm((m) => void (m.spec.entities[1].relations[0].key = 'customer'))), 'ends with "_id"'],
    ['belongs_to target', () => validateManifest(crm((m) => void (m.spec.entities[1].relations[0].entity = 'ghost'))), 'change the relation'],
    ['duplicate entity', () => validateManifest(crm((m) => void m.spec.entities.push(m.spec.entities[0]))), 'its own key'],
    [
      'duplicate field',
      () => validateManifest(crm((m) => void m.spec.entities[0].fields.push({ key: 'name', type: 'string', name: 'N' }))),
      'share one namespace',
    ],
    ['enum without values', () => validateManifest(crm((m) => void (m.spec.entities[0].fields[2].enumValues = []))), 'non-empty `enumValues`'],
    ['lifecycle field', () => validateManifest(crm((m) => void (m.spec.entities[0].lifecycle.field = 'ghost'))), '`lifecycle.field` must be a declared field'],
    ['unknown transition', () => validateManifest(crm((m) => void (m.spec.entities[0].capabilities[0].transition = 'ghost'))), 'existing transition key'],
    [
      'select input',
      () => validateManifest(crm((m) => void m.spec.entities[0].capabilities[1].input.push({ key: 'why', type: 'select', options: [] }))),
      'non-empty options',
    ],
    ['aggregation', () => validateManifest(crm((m) => void (m.spec.entities[0].computed[0].relation = 'ghost'))), 'Fix the aggregation'],
    ['repeated scope', () => validateManifest(crm((m) => void (m.spec.roles[0].scopes = ['crm.admin', 'crm.admin']))), 'Remove the duplicate values'],
    ['empty spec', () => validateManifest({ ...crm(), spec: { mount: { mountPath: '/', landingPage: 'x' } } }), 'recommend_manifest_structure drafts'],
    [
      'nesting depth',
      () =>
        validateManifest(
          crm(
            (m) =>
              void m.spec.entities[0].fields.push({
                key: 'a',
                type: 'object',
                name: 'A',
                fields: [{ key: 'b', type: 'object', name: 'B', fields: [{ key: 'c', type: 'object', name: 'C', fields: [] }] }],
              }),
          ),
        ),
      'nest at most three levels',
    ],
  ];

  it.each(cases)('%s: the validator message gets its own fix', (_name, run, phrase) => {
    const { errors } = run();
    expect(errors.length).toBeGreaterThan(0);
    const explained = explainErrors(errors);
    expect(ExplainErrorsResultSchema.parse(explained)).toEqual(explained);
    expect(explained[0]!.fix).toContain(phrase);
    expect(explained.map((item) => [item.path, item.problem])).toEqual(errors.map((error) => [error.field, error.message]));
    for (const item of explained) {
      expect(item.relatedTools.length).toBeGreaterThan(0);
      for (const tool of item.relatedTools) expect(MCP_TOOLS.has(tool), tool).toBe(true);
    }
  });

  it('points each error at the schema tool of the part it is in', () => {
    const [entity, pageError, capability] = explainErrors([
      { field: 'spec.entities[customer].fields[x]', message: 'Something odd' },
      { field: 'spec.pages[a].menu', message: 'Something odd' },
      { field: 'spec.entities[customer].capabilities[go]', message: 'Something odd' },
    ]);
    expect(entity!.relatedTools[0]).toBe('get_entity_definition_schema');
    expect(pageError!.relatedTools[0]).toBe('get_page_schema');
    expect(capability!.relatedTools[0]).toBe('get_capability_schema');
  });

  it('falls back to schema advice for an unknown message, keeping length and order', () => {
    const input = [
      { field: 'a', message: 'first' },
      { field: 'b', message: 'second' },
    ];
    const explained = explainErrors(input);
    expect(explained).toEqual([
      { path: 'a', problem: 'first', fix: expect.stringContaining('get_manifest_schema'), relatedTools: ['get_manifest_schema', 'get_example_manifest'] },
      { path: 'b', problem: 'second', fix: expect.stringContaining('get_manifest_schema'), relatedTools: ['get_manifest_schema', 'get_example_manifest'] },
    ]);
    expect(explainErrors([])).toEqual([]);
  });

  it('does not take a field name inside a message for the kind rule', () => {
    const [item] = explainErrors([{ field: 'spec.entities[a].relations[b]', message: 'relation kind bad' }]);
    expect(item!.fix).not.toContain('Cell');
  });
});
