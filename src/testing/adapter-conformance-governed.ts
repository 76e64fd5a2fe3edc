/**
 * The governed resource the adapter conformance suite drives: a small workspace-shared tier-1
 * entity on the in-memory driver, and a tenant-wide admin token for it.
 */
import { signDevToken } from '../governed/auth/dev-token.ts';
import { createGovernedResource } from '../governed/create-governed-resource.ts';
import type { FetchHandler } from '../http/handler.ts';
import type { GovernedService } from '../governed/service-types.ts';
import { memoryStorage } from '../storage/memory/index.ts';

/** What the governed cases need. */
export interface GovernedFixture {
  handler: FetchHandler;
  /** Collection path, e.g. `/v1/workspaces/<uuid>/notes`. */
  collection: string;
  /** Headers with a valid bearer token. */
  auth: Record<string, string>;
  /** The resource's programmatic API (the benchmark's native routes do the same work through it). */
  service: GovernedService;
  /** The HS256 secret the tokens are signed with. */
  secret: string;
  /** The workspace of {@link GovernedFixture.collection}. */
  workspaceId: string;
}

const SECRET = 'adapter-conformance-secret-0123456789abcdef';
const TENANT = '0a000000-0000-4000-8000-000000000001';
const WORKSPACE = '0a000000-0000-4000-8000-000000000002';

/** Builds the fixture on a fresh in-memory store. */
export async function createGovernedFixture(): Promise<GovernedFixture> {
  const resource = createGovernedResource({
    entity: {
      $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
      name: 'Note',
      description: 'A short note of the workspace (adapter conformance fixture).',
      key: 'conformance.note',
      version: '1.0.0',
      scope: 'workspace-shared',
      governance_tier: 'tier-1',
      permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
      fields: { title: { type: 'string' }, body: { type: 'string', optional: true } },
    },
    storage: memoryStorage(),
    auth: { secret: SECRET },
  });
  await resource.migrate();
  const token = await signDevToken({
    secret: SECRET,
    tenantId: TENANT,
    roles: ['admin'],
    workspaces: { [WORKSPACE]: ['admin'] },
    permissions: ['audit:read', 'audit:restore'],
  });
  return {
    handler: resource,
    collection: `/v1/workspaces/${WORKSPACE}/${resource.resourceName}`,
    auth: { authorization: `Bearer ${token}` },
    service: resource.service,
    secret: SECRET,
    workspaceId: WORKSPACE,
  };
}
