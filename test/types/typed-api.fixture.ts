/**
 * Type-level cases of `createGovernedApi` and `createTestApi` keeping each resource's record type,
 * compiled by tsc (test/types/types.test.ts, under `strict` and `exactOptionalPropertyTypes`,
 * moduleResolution `bundler` and `nodenext`, and the project's own type check). Each
 * `@ts-expect-error` marks code that must NOT compile; if it ever compiles, tsc reports the unused
 * directive and the test fails.
 */
import {
  BusinessRuleError,
  rulesFor,
  composeHandlers,
  createContractHandler,
  createGovernedApi,
  defineEntity,
  loadEntity,
  memoryStorage,
  type EntityRecordOf,
  type GovernedApi,
  type GovernedContext,
} from 'cellgate';
import { createTestApi } from 'cellgate/testing';

const Project = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Project',
  description: 'A project',
  key: 'pm.project',
  version: '1.0.0',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: { name: { type: 'string' }, status: { type: 'string', enum: ['ACTIVE', 'ARCHIVED'] } },
});

const Task = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  description: 'A task of a project',
  key: 'pm.task',
  version: '1.0.0',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: { title: { type: 'string' }, project_id: { type: 'string', format: 'uuid' }, done: { type: 'boolean', optional: true } },
  data: { sorting: { allowedFields: ['title'] }, filtering: { allowedFields: ['done', 'project_id'] } },
});

/** A named record type, as an app would declare it (what the editor shows on hover). */
type TaskRecord = EntityRecordOf<typeof Task>;

declare const context: GovernedContext;
const secret = 'a-development-secret-of-32-bytes-or-more';

export async function objectForm(): Promise<void> {
  const api = createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: { projects: Project, tasks: { entity: Task, rollback: false } } });
  const created = await api.resources.tasks.service.create(context, { title: 'Plan', projectId: '00000000-0000-4000-8000-000000000001' });
  const record: TaskRecord = created.data;
  const title: string = created.data.title;
  const done: boolean | null = created.data.done;
  void [record, title, done];
  const project = await api.resources.projects.service.get(context, created.data.projectId);
  const status: 'ACTIVE' | 'ARCHIVED' = project.data.status;
  void status;

  // @ts-expect-error a misspelt field on a typed resource
  await api.resources.tasks.service.create(context, { titel: 'Plan', projectId: '00000000-0000-4000-8000-000000000001' });
  // @ts-expect-error a required field left out
  await api.resources.tasks.service.create(context, { title: 'Plan' });
  // @ts-expect-error a resource the API does not have
  void api.resources.nope;
  // List sortBy and filters typed from the data block (sorting/filtering allowedFields, camelCase).
  await api.resources.tasks.service.list(context, { sortBy: 'title', filters: [{ field: 'projectId', operator: 'equals', value: project.data.id }] });
  await api.resources.tasks.service.list(context, { sortBy: 'createdAt', sortDir: 'desc' });
  // @ts-expect-error a sortBy outside sorting.allowedFields
  await api.resources.tasks.service.list(context, { sortBy: 'titel' });
  // @ts-expect-error a filter on a field outside filtering.allowedFields
  await api.resources.tasks.service.list(context, { filters: [{ field: 'title', operator: 'equals', value: 'x' }] });
  // @ts-expect-error an entity without a sorting block sorts by createdAt and updatedAt only
  await api.resources.projects.service.list(context, { sortBy: 'name' });
  // @ts-expect-error one resource's field on another
  await api.resources.projects.service.update(context, created.data.id, { expectedVersion: 1, title: 'x' });
}

/** A typed API still goes wherever a `GovernedApi` goes (composition, purge, the test kit). */
export function assignable(): GovernedApi[] {
  const api = createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: { tasks: Task } });
  void composeHandlers(api, createContractHandler());
  return [api];
}

export async function listForm(): Promise<void> {
  // A list whose every entry names its path name: typed by those names.
  const named = createGovernedApi({
    storage: memoryStorage(),
    auth: { secret },
    resources: [
      { entity: Project, resourceName: 'projects' },
      { entity: Task, resourceName: 'tasks' },
    ],
  });
  const task = await named.resources.tasks.service.get(context, 'id');
  const title: string = task.data.title;
  void title;
  // @ts-expect-error a resource the API does not have
  void named.resources.nope;

  // A list of documents: the path names are computed at run time (English plurals), so keys stay loose.
  const loose = createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: [Project, Task] });
  const maybe = loose.resources.tasks;
  void maybe;

  // A document known only at run time keeps the general record.
  const general = createGovernedApi({ storage: memoryStorage(), auth: { secret }, resources: { notes: loadEntity(JSON.parse('{}') as unknown) } });
  const note = await general.resources.notes.service.create(context, { anything: 1 });
  const value: unknown = note.data.anything;
  void value;
}

export async function testApi(): Promise<void> {
  const appOptions = { storage: memoryStorage(), resources: { projects: Project, tasks: Task }, hooks: {} } as const;
  const t = await createTestApi(appOptions);
  const editor = t.as({ roles: ['editor'] });
  const { data } = await editor.tasks.create({ title: 'Write tests', projectId: '00000000-0000-4000-8000-000000000001' });
  const title: string = data.title;
  void title;
  // @ts-expect-error a misspelt field through the test client
  await editor.tasks.create({ titel: 'Write tests', projectId: '00000000-0000-4000-8000-000000000001' });
  // @ts-expect-error a resource the API does not have
  void editor.nope;
  // @ts-expect-error auth is made by the test API
  await createTestApi({ resources: { tasks: Task }, auth: { secret } });

  // The older form keeps working, loosely typed.
  const old = await createTestApi({ entities: [Task] });
  const answer = await old.as({ roles: ['editor'] }).tasks?.create({ title: 'x' });
  void answer;
}

/** `api.transaction`: `tx` has every resource's typed methods with the context bound; rules typed by `rulesFor`. */
export async function transactions(): Promise<void> {
  const api = createGovernedApi({
    storage: memoryStorage(),
    auth: { secret },
    resources: {
      projects: Project,
      tasks: {
        entity: Task,
        rules: rulesFor(Task, {
          async validate(_input, { next, tx }) {
            const title: string | undefined = next?.title;
            if (title === 'x') throw new BusinessRuleError('No x', [{ path: 'title', message: 'Not x' }]);
            const project = next === null ? undefined : await tx.projects?.get(next.projectId);
            return project === undefined ? [] : [{ path: 'projectId', message: String(project.data.name) }];
          },
        }),
      },
    },
  });
  const created = await api.transaction(context, async (tx) => {
    const project = await tx.projects.create({ name: 'Launch', status: 'ACTIVE' });
    const status: 'ACTIVE' | 'ARCHIVED' = project.data.status;
    void status;
    const task = await tx.tasks.create({ title: 'Plan', projectId: project.data.id });
    await tx.tasks.update(task.data.id, { expectedVersion: 1, done: true });
    // @ts-expect-error a misspelt field inside a transaction
    await tx.tasks.create({ titel: 'Plan', projectId: project.data.id });
    // @ts-expect-error a resource the API does not have
    void tx.nope;
    // @ts-expect-error the context is bound: a method takes no context
    await tx.tasks.get(context, task.data.id);
    // @ts-expect-error one resource's field on another
    await tx.projects.update(project.data.id, { expectedVersion: 1, title: 'x' });
    return task;
  });
  const title: string = created.data.title;
  void title;
  // @ts-expect-error a typed rule's record has no such field
  void rulesFor(Task, { validate: (_input, { next }) => void next?.titel });
}
