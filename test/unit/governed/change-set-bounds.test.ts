/**
 * The bounds of change sets and business rules (docs/decisions/B27.md, B28.md), on the memory
 * driver: the write past MAX_CHANGE_SET_WRITES rolls the whole transaction back, a rule past
 * RULE_TIMEOUT_MS (fake timers) or returning garbage is an internal error, issues are capped, and
 * a failing afterCommit is logged without changing the answer.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CellgateError,
  createGovernedApi,
  createGovernedResource,
  defineEntity,
  memoryStorage,
  type BusinessRules,
  type GovernedContext,
  type GovernedLogEntry,
} from 'cellgate';
import { BusinessRuleFailure } from '../../../src/governed/rules/validate.ts';
import { MAX_CHANGE_SET_WRITES, MAX_RULE_ISSUES, RULE_TIMEOUT_MS } from '../../../src/limits.ts';

const Note = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Note',
  key: 'unit.note',
  version: '1.0.0',
  description: 'A note',
  scope: 'workspace-shared',
  governance_tier: 'tier-3',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { text: { type: 'string' } },
});

const workspaceId = crypto.randomUUID();
const context: GovernedContext = {
  actor: { id: crypto.randomUUID(), type: 'user', tenantId: crypto.randomUUID(), roles: [], workspaces: { [workspaceId]: ['admin'] }, permissions: [] },
  scope: { workspaceId },
};

async function notes(rules?: BusinessRules, logger?: (entry: GovernedLogEntry) => void) {
  const storage = memoryStorage();
  const api = createGovernedApi({
    storage,
    auth: { secret: 'unit-change-set-bounds-secret-0123456789' },
    ...(logger === undefined ? {} : { logger }),
    resources: { notes: rules === undefined ? Note : { entity: Note, rules } },
  });
  await api.migrate();
  return { api, storage };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('change set bounds', () => {
  it(`writes ${MAX_CHANGE_SET_WRITES} records in one transaction and refuses the next with 413, writing nothing`, async () => {
    const { api, storage } = await notes();
    await api.transaction(context, async (tx) => {
      for (let index = 0; index < MAX_CHANGE_SET_WRITES; index += 1) await tx.notes.create({ text: `n${index}` });
    });
    const error = await api
      .transaction(context, async (tx) => {
        for (let index = 0; index <= MAX_CHANGE_SET_WRITES; index += 1) await tx.notes.create({ text: `m${index}` });
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CellgateError);
    expect((error as CellgateError).code).toBe('PAYLOAD_TOO_LARGE');
    expect((error as CellgateError).details).toEqual({ limit: MAX_CHANGE_SET_WRITES });
    const audit = await storage.listAudit({ tenantId: context.actor.tenantId, limit: 1_000 });
    expect(audit.records).toHaveLength(MAX_CHANGE_SET_WRITES);
  });
});

describe('business rule bounds', () => {
  it(`fails a rule that runs past ${RULE_TIMEOUT_MS} ms as an internal error, writing nothing`, async () => {
    const { api, storage } = await notes({ validate: () => new Promise<never>(() => undefined) });
    vi.useFakeTimers();
    const pending = api.resources.notes.service.create(context, { text: 'slow' }).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(RULE_TIMEOUT_MS - 1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await pending;
    expect(error).toBeInstanceOf(BusinessRuleFailure);
    expect((error as Error).message).toContain(`took longer than ${RULE_TIMEOUT_MS} ms`);
    expect((await storage.listAudit({ tenantId: context.actor.tenantId, limit: 10 })).records).toEqual([]);
  });

  it('fails a rule that returns something other than issues', async () => {
    const { api } = await notes({ validate: () => 'no' as never });
    await expect(api.resources.notes.service.create(context, { text: 'x' })).rejects.toBeInstanceOf(BusinessRuleFailure);
  });

  it(`keeps the first ${MAX_RULE_ISSUES} issues of a refusal`, async () => {
    const issues = Array.from({ length: MAX_RULE_ISSUES + 10 }, (_, index) => ({ path: `text`, message: `issue ${index}` }));
    const { api } = await notes({ validate: () => issues });
    const error = (await api.resources.notes.service.create(context, { text: 'x' }).catch((caught: unknown) => caught)) as CellgateError;
    expect(error.code).toBe('BUSINESS_RULE_VIOLATION');
    expect((error.details?.fields as unknown[]).length).toBe(MAX_RULE_ISSUES);
  });

  it('logs a failing afterCommit and answers the committed write as usual', async () => {
    const entries: GovernedLogEntry[] = [];
    const { api } = await notes(
      {
        afterCommit: () => {
          throw new Error('hook failed');
        },
      },
      (entry) => entries.push(entry),
    );
    const created = await api.resources.notes.service.create(context, { text: 'kept' });
    expect(created.data.version).toBe(1);
    expect(entries.filter((entry) => entry.event === 'rules.after_commit_failed').map((entry) => entry.resourceId)).toEqual([created.data.id]);
    // A tier-3 entity has no outbox event; afterCommit still gets one.
    const rejected: string[] = [];
    const { api: other } = await notes(
      {
        afterCommit: async (event) => {
          rejected.push(event.type);
          throw new Error('async hook failed');
        },
      },
      (entry) => entries.push(entry),
    );
    const second = await other.resources.notes.service.create(context, { text: 'kept' });
    expect(rejected).toEqual(['entity.created']);
    await vi.waitFor(() => expect(entries.filter((entry) => entry.event === 'rules.after_commit_failed')).toHaveLength(2));
    expect(entries.at(-1)?.resourceId).toBe(second.data.id);
  });
});

describe('a resource on its own', () => {
  it('gives its rule a tx that reads the resource itself, and nothing else', async () => {
    const storage = memoryStorage();
    const seen: string[][] = [];
    const notes = createGovernedResource({
      entity: Note,
      storage,
      auth: { secret: 'unit-change-set-bounds-secret-0123456789' },
      rules: {
        async validate(_input, { next, tx }) {
          seen.push(Object.keys(tx));
          const same = await tx.notes?.list({ pageSize: 100 });
          if (same?.data.some((note) => note.text === next?.text)) return [{ path: 'text', message: 'Already written' }];
        },
      },
    });
    await notes.migrate();
    await notes.service.create(context, { text: 'once' });
    const again = await notes.service.create(context, { text: 'once' }).catch((caught: unknown) => caught);
    expect((again as CellgateError).code).toBe('BUSINESS_RULE_VIOLATION');
    expect(seen).toEqual([['notes'], ['notes']]);
  });
});
