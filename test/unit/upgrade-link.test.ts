/** `defineEntity(v2, { from: v1, up, down })`: the link is checked and typed (docs/decisions/B40.md). */
import { describe, expect, it } from 'vitest';
import { ConfigurationError, defineEntity } from '../../src/index.ts';
import { upgradeLinkOf } from '../../src/entity-document/index.ts';

const base = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Invoice',
  key: 'crm.invoice',
  description: 'An invoice',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
} as const;
const V1 = defineEntity({ ...base, version: '1.4.0', fields: { amount: { type: 'number' } } });
const v2Document = { ...base, version: '2.0.0', fields: { amount_cents: { type: 'integer' } } } as const;

describe('defineEntity with an upgrade link', () => {
  it('records from, up and down for the newer major', () => {
    const V2 = defineEntity(v2Document, {
      from: V1,
      up: (v1) => ({ amountCents: Math.round(v1.amount * 100) }),
      down: (v2) => ({ amount: v2.amountCents / 100 }),
    });
    const link = upgradeLinkOf(V2)!;
    expect(link.from).toBe(V1);
    expect(link.up({ amount: 12.5 })).toEqual({ amountCents: 1250 });
    expect(link.down!({ amountCents: 1250 })).toEqual({ amount: 12.5 });
    expect(upgradeLinkOf(V1)).toBeUndefined();
  });

  it('types up from the older record to the newer one', () => {
    defineEntity(v2Document, {
      from: V1,
      // @ts-expect-error: amountCents must be a number, and v1 has no amountCents
      up: (v1) => ({ amountCents: String(v1.amountCents) }),
    });
    // @ts-expect-error: down must return the older record (amount), not the newer one
    defineEntity(v2Document, { from: V1, up: (v1) => ({ amountCents: v1.amount }), down: (v2) => ({ amountCents: v2.amountCents }) });
    expect(true).toBe(true);
  });

  it('refuses a link to another key, to the same or a higher major, or without functions', () => {
    const other = defineEntity({ ...base, key: 'crm.bill', version: '1.0.0', fields: { amount: { type: 'number' } } });
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error instanceof ConfigurationError ? error.message : 'not a ConfigurationError';
      }
      return 'accepted';
    };
    expect(refusal(() => defineEntity(v2Document, { from: other as never, up: () => ({ amountCents: 1 }) }))).toContain('is crm.bill, not crm.invoice');
    expect(refusal(() => defineEntity({ ...v2Document, version: '1.9.0' }, { from: V1, up: () => ({ amountCents: 1 }) }))).toContain(
      'is v1, not a major below v1',
    );
    expect(refusal(() => defineEntity(v2Document, { from: V1, up: 'nope' as never }))).toContain('upgrade.up');
    expect(refusal(() => defineEntity(v2Document, { from: V1, up: () => ({ amountCents: 1 }), down: 3 as never }))).toContain('upgrade.down');
  });
});
