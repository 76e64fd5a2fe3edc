// createTestApi with the app's own options and its typed client (issue #28): every client call
// goes over the API's handler with the actor's token, and a refusal is a CellgateError.
import { CellgateError, ConfigurationError, defineEntity, type DomainEvent } from 'cellgate';
import { createTestApi } from 'cellgate/testing';
import { describe, expect, it } from 'vitest';

const Note = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Note',
  key: 'work.note',
  version: '1.0.0',
  description: 'A note',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: { body: { type: 'string' }, pinned: { type: 'boolean', optional: true } },
  data: { sorting: { allowedFields: ['body'] }, filtering: { allowedFields: ['pinned'] } },
});

describe('createTestApi(appOptions).as(actor)', () => {
  it('creates, reads, lists, updates, deletes and rolls back over HTTP, with the app options applied', async () => {
    const events: DomainEvent[] = [];
    const t = await createTestApi({ resources: { notes: Note }, onEvent: (event) => void events.push(event), basePath: '/api' });
    const admin = t.as({ roles: ['admin'] });
    const first = await admin.notes.create({ body: 'b' }, { idempotencyKey: 'k-1' });
    const replay = await admin.notes.create({ body: 'b' }, { idempotencyKey: 'k-1' });
    expect(replay.data.id).toBe(first.data.id);
    await admin.notes.create({ body: 'a', pinned: true });

    expect((await admin.notes.get(first.data.id)).data.body).toBe('b');
    const sorted = await admin.notes.list({ sortBy: 'body', sortDir: 'asc' });
    expect(sorted.data.map((note) => note.body)).toEqual(['a', 'b']);
    const pinned = await admin.notes.list({ pinned: 'true' });
    expect(pinned.meta.total).toBe(1);

    const updated = await admin.notes.update(first.data.id, { expectedVersion: 1, patch: [{ op: 'replace', path: '/body', value: 'c' }] });
    const deleted = await admin.notes.delete(first.data.id, updated.meta.version);
    expect(deleted.data.deletedAt).not.toBeNull();
    const restored = await t.as({ roles: ['admin'], permissions: ['audit:restore'] }).notes.rollback(first.data.id, { targetVersion: 2 });
    expect(restored.data).toMatchObject({ body: 'c', deletedAt: null, version: 4 });
    // The app's onEvent ran for every write; the app's basePath is where the client calls.
    expect(events.map((event) => event.type)).toEqual(['entity.created', 'entity.created', 'entity.updated', 'entity.deleted', 'entity.restored']);
    expect(t.path('notes')).toBe(`/api/v1/workspaces/${t.ids.workspace}/notes`);
  });

  it('rejects a refusal with a CellgateError carrying the status, code and details of the answer', async () => {
    const t = await createTestApi({ resources: { notes: Note } });
    const missing = t.as({ roles: ['viewer'] }).notes.get('00000000-0000-4000-8000-0000000000ff');
    await expect(missing).rejects.toBeInstanceOf(CellgateError);
    await expect(missing).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(t.as({ roles: ['editor'] }).notes.create({ body: 5 } as never)).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      details: { fields: [expect.objectContaining({ path: 'body' })] },
    });
  });

  it('refuses an auth option, both or neither of resources and entities, and a misspelt app option', async () => {
    await expect(createTestApi({ resources: { notes: Note }, auth: { secret: 'x' } } as never)).rejects.toThrow(/^auth: is made by createTestApi/);
    await expect(createTestApi({ resources: { notes: Note }, entities: [Note] } as never)).rejects.toThrow(ConfigurationError);
    await expect(createTestApi({} as never)).rejects.toThrow(/^resources: give the app's resources/);
    await expect(createTestApi({ resources: { notes: Note }, hook: {} } as never)).rejects.toThrow('hook: is not an option; did you mean "hooks"?');
  });

  it('keeps the entities form, and path() names a resource only by its own name', async () => {
    const t = await createTestApi({ entities: [Note] });
    expect((await t.as({ roles: ['editor'] }).notes?.create({ body: 'x' }))?.data.body).toBe('x');
    expect(() => t.path('constructor')).toThrow('No resource "constructor"; the API has notes.');
  });
});
