import { describe, expect, it } from 'vitest';
import { ConfigurationError } from 'cellgate';
import {
  defineEntity,
  entityReference,
  pluralize,
  resourcePathName,
  snakeToCamel,
  camelToSnake,
  toStorageModel,
  validateEntityDocument,
  type EntityDocumentInput,
} from '../../src/entity-document/index.ts';

const base: EntityDocumentInput = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Invoice',
  key: 'crm.invoice',
  version: '1.2.0',
  description: 'A customer invoice',
  scope: 'cell-isolated',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: {
    amount: { type: 'number' },
    status: { type: 'string', enum: ['DRAFT', 'PAID'] },
    due_date: { type: 'string', format: 'date-time' },
    notes: { type: 'string', optional: true, redact: 'hash' },
  },
  data: {
    filtering: { allowedFields: ['status', 'amount', 'due_date'], operators: { status: ['equals', 'in'], amount: ['gt', 'between'], due_date: ['before'] } },
    searching: { fields: ['notes'] },
    sorting: { allowedFields: ['amount', 'due_date'], default: { field: 'due_date', direction: 'desc' } },
  },
};

/** A copy of the base document with one change applied. */
function variant(change: (doc: Record<string, any>) => void): unknown {
  const doc = structuredClone(base) as Record<string, any>;
  change(doc);
  return doc;
}

function firstError(input: unknown): { field: string; message: string } | undefined {
  const result = validateEntityDocument(input);
  expect(result.valid).toBe(result.errors.length === 0);
  return result.errors[0];
}

describe('entity definition document', () => {
  it('accepts the base document and adds base fields by scope', () => {
    expect(validateEntityDocument(base)).toEqual({ valid: true, errors: [] });
    const entity = defineEntity(base);
    expect(Object.keys(entity.fields)).toEqual(
      expect.arrayContaining(['id', 'tenant_id', 'workspace_id', 'cell_id', 'version', 'created_at', 'deleted_by', 'amount']),
    );
    expect(entity.fields.amount).toEqual({ type: 'number', nullable: false, optional: false, sensitive: false, credential: false });
    expect(Object.isFrozen(entity.fields.amount)).toBe(true);
  });

  it('is idempotent: a defined entity defines again to the same document', () => {
    const entity = defineEntity(base);
    expect(defineEntity(entity)).toEqual(entity);
    expect(validateEntityDocument(entity)).toEqual({ valid: true, errors: [] });
  });

  it('system-global entities get no workspace or cell fields and refuse them', () => {
    const global = defineEntity({ ...base, scope: 'system-global', data: undefined });
    expect(Object.keys(global.fields)).not.toContain('workspace_id');
    expect(
      firstError(
        variant((d) => {
          d.scope = 'system-global';
          d.fields.workspace_id = { type: 'string', format: 'uuid' };
        }),
      ),
    ).toEqual({ field: 'fields.workspace_id', message: 'workspace_id is not allowed for scope system-global' });
  });

  it('accepts declared base fields with the right descriptor and refuses wrong ones', () => {
    expect(
      validateEntityDocument(
        variant((d) => {
          d.fields.tenant_id = { type: 'string', format: 'uuid' };
          d.fields.deleted_at = { type: 'string', format: 'date-time', nullable: true };
        }),
      ).valid,
    ).toBe(true);
    expect(
      firstError(
        variant((d) => {
          d.fields.version = { type: 'string' };
        }),
      ),
    ).toEqual({ field: 'fields.version.type', message: 'Base field version must have type "integer"' });
    expect(
      firstError(
        variant((d) => {
          d.fields.deleted_at = { type: 'string', format: 'date-time' };
        }),
      )?.field,
    ).toBe('fields.deleted_at.nullable');
  });

  const broken: [string, (d: Record<string, any>) => void, string][] = [
    ['$schema missing', (d) => delete d.$schema, '$schema'],
    [
      '$schema wrong',
      (d) => {
        d.$schema = 'https://x/entity/v2.json';
      },
      '$schema',
    ],
    [
      'name not PascalCase',
      (d) => {
        d.name = 'invoice';
      },
      'name',
    ],
    [
      'key without domain',
      (d) => {
        d.key = 'invoice';
      },
      'key',
    ],
    [
      'key camelCase',
      (d) => {
        d.key = 'crm.invoiceItem';
      },
      'key',
    ],
    [
      'version not semver',
      (d) => {
        d.version = '1.0';
      },
      'version',
    ],
    ['description missing', (d) => delete d.description, 'description'],
    [
      'scope unknown',
      (d) => {
        d.scope = 'global';
      },
      'scope',
    ],
    [
      'tier unknown',
      (d) => {
        d.governance_tier = 'tier-4';
      },
      'governance_tier',
    ],
    ['permissions incomplete', (d) => delete d.permissions.admin, 'permissions.admin'],
    [
      'unknown top-level member',
      (d) => {
        d.owner = 'x';
      },
      'root',
    ],
    [
      'field type unknown',
      (d) => {
        d.fields.amount.type = 'money';
      },
      'fields.amount.type',
    ],
    [
      'unknown descriptor property',
      (d) => {
        d.fields.amount.min = 0;
      },
      'fields.amount',
    ],
    [
      'field name not snake_case',
      (d) => {
        d.fields.dueDate = { type: 'string' };
      },
      'fields.dueDate',
    ],
    [
      'format on a number',
      (d) => {
        d.fields.amount.format = 'uuid';
      },
      'fields.amount.format',
    ],
    [
      'enum on a number',
      (d) => {
        d.fields.amount.enum = ['1'];
      },
      'fields.amount.enum',
    ],
    [
      'duplicate enum values',
      (d) => {
        d.fields.status.enum = ['A', 'A'];
      },
      'fields.status.enum',
    ],
    [
      'redact on a sensitive field',
      (d) => {
        d.fields.notes.sensitive = true;
      },
      'fields.notes.redact',
    ],
    [
      'redact on a number',
      (d) => {
        d.fields.amount.redact = 'length';
      },
      'fields.amount.redact',
    ],
    [
      'no business field',
      (d) => {
        d.fields = { id: { type: 'string', format: 'uuid' } };
        d.data = undefined;
      },
      'fields',
    ],
    [
      'filter field not defined',
      (d) => {
        d.data.filtering.allowedFields.push('total');
      },
      'data.filtering.allowedFields.3',
    ],
    [
      'filter field camelCase',
      (d) => {
        d.data.filtering.allowedFields.push('dueDate');
      },
      'data.filtering.allowedFields.3',
    ],
    [
      'operator unknown',
      (d) => {
        d.data.filtering.operators.status = ['like'];
      },
      'data.filtering.operators.status.0',
    ],
    [
      'operator not sensible for the type',
      (d) => {
        d.data.filtering.operators.amount = ['contains'];
      },
      'data.filtering.operators.amount.0',
    ],
    [
      'operators for a field not allowed',
      (d) => {
        d.data.filtering.operators.notes = ['equals'];
      },
      'data.filtering.operators.notes',
    ],
    [
      'search on a number',
      (d) => {
        d.data.searching.fields = ['amount'];
      },
      'data.searching.fields.0',
    ],
    [
      'sort field not defined',
      (d) => {
        d.data.sorting.allowedFields = ['total'];
      },
      'data.sorting.allowedFields.0',
    ],
    [
      'sort default not allowed',
      (d) => {
        d.data.sorting.default.field = 'status';
      },
      'data.sorting.default.field',
    ],
    [
      'sort default direction',
      (d) => {
        d.data.sorting.default.direction = 'up';
      },
      'data.sorting.default.direction',
    ],
  ];

  for (const [name, change, path] of broken) {
    it(`refuses: ${name} (${path}), and defineEntity names entity.${path}`, () => {
      const input = variant(change);
      expect(firstError(input)?.field).toBe(path);
      const error = (() => {
        try {
          defineEntity(input as EntityDocumentInput);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).path).toBe(path === 'root' ? 'entity' : `entity.${path}`);
    });
  }

  it('refuses prototype-polluting field names from parsed JSON', () => {
    const doc = JSON.parse(JSON.stringify(base).replace('"amount":', '"__proto__":')) as unknown;
    const result = validateEntityDocument(doc);
    expect(result.valid).toBe(false);
    expect(result.errors).toContainEqual({ field: 'fields.__proto__', message: 'Field names must be snake_case' });
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it('reports Required for missing members', () => {
    expect(validateEntityDocument(variant((d) => delete d.name)).errors).toContainEqual({ field: 'name', message: 'Required' });
  });

  it('never throws on any JSON input', () => {
    for (const input of [
      null,
      undefined,
      42,
      'x',
      [],
      [base],
      { fields: null },
      { ...base, fields: [] },
      { ...base, data: 'x' },
      { ...base, permissions: { view: 'x' } },
    ]) {
      const result = validateEntityDocument(input);
      expect(result.valid).toBe(false);
      expect(result.errors.length).toBeGreaterThan(0);
    }
  });

  it('derives the storage model', () => {
    const model = toStorageModel(defineEntity(base));
    expect(model).toEqual({
      resourceType: 'crm.Invoice@v1',
      table: 'crm_invoice_v1',
      scope: 'cell-isolated',
      fields: [
        { name: 'amount', type: 'number', nullable: false, required: true },
        { name: 'status', type: 'string', nullable: false, required: true, enum: ['DRAFT', 'PAID'] },
        { name: 'due_date', type: 'string', format: 'date-time', nullable: false, required: true },
        // Optional: the judge of drift lets rows lack it (docs/decisions/B23.md).
        { name: 'notes', type: 'string', nullable: false, required: false },
      ],
      indexedFields: ['status', 'amount', 'due_date', 'created_at', 'updated_at'],
    });
    expect(entityReference({ key: 'ops.activity_event', name: 'ActivityEvent', version: '2.0.1' })).toBe('ops.ActivityEvent@v2');
  });

  it('converts names', () => {
    expect(snakeToCamel('invoice_number')).toBe('invoiceNumber');
    expect(snakeToCamel('tenant_id')).toBe('tenantId');
    expect(camelToSnake('annualRevenue')).toBe('annual_revenue');
    expect(resourcePathName('Invoice')).toBe('invoices');
    expect(resourcePathName('ActivityEvent')).toBe('activity-events');
    expect(resourcePathName('Category')).toBe('categories');
    expect(resourcePathName('Address')).toBe('addresses');
    expect(resourcePathName('Person')).toBe('people');
    expect(resourcePathName('StockLevel')).toBe('stock-levels');
    expect(resourcePathName('Day')).toBe('days');
    expect(pluralize('analysis')).toBe('analyses');
    expect(pluralize('box')).toBe('boxes');
    expect(pluralize('hero')).toBe('heroes');
    expect(pluralize('photo')).toBe('photos');
  });
});
