/**
 * Resource paths by scope (SEED.md "Area B: resource paths", DECISIONS B3) under an optional
 * `basePath`, and the scope a matched path names. Ids in paths must be UUIDs; anything else is
 * answered 404 like a record that does not exist.
 */
import { CellgateError, ConfigurationError } from '../../errors.ts';
import type { EntityScope } from '../../storage/types.ts';
import type { GovernedScope } from '../types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** Path names a system-global resource may not take: they are the other routes under `/v1`. */
const RESERVED_NAMES = new Set(['workspaces', 'audit']);

/** True for a UUID in the 8-4-4-4-12 hex form. */
export const isUuid = (value: string | undefined): value is string => value !== undefined && UUID.test(value);

/** `""` or `/api` style prefix, no trailing slash; throws {@link ConfigurationError} on anything else. */
export function normalizeBasePath(basePath: string | undefined, path = 'basePath'): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  if (!/^(\/[A-Za-z0-9._~-]+)+\/?$/.test(basePath)) {
    throw new ConfigurationError(path, `must look like "/api" (got "${basePath}").`);
  }
  return basePath.replace(/\/$/, '');
}

/** Checks a resource path name: plural kebab-case, not a reserved segment. */
export function checkResourceName(name: string, scope: EntityScope, path = 'resourceName'): string {
  if (!KEBAB.test(name)) throw new ConfigurationError(path, `must be kebab-case (got "${name}").`);
  if (scope === 'system-global' && RESERVED_NAMES.has(name)) {
    throw new ConfigurationError(path, `"${name}" collides with the /v1/${name} routes; choose another name.`);
  }
  return name;
}

/** The itty-router patterns of one resource. */
export interface ResourcePatterns {
  collection: string;
  item: string;
  rollback: string;
  versions: string;
}

/** Route patterns of a resource of `scope` named `name` under `basePath`. */
export function resourcePatterns(scope: EntityScope, name: string, basePath: string): ResourcePatterns {
  const prefix =
    scope === 'system-global'
      ? `${basePath}/v1`
      : scope === 'workspace-shared'
        ? `${basePath}/v1/workspaces/:workspaceId`
        : `${basePath}/v1/workspaces/:workspaceId/cells/:cellId`;
  const collection = `${prefix}/${name}`;
  return { collection, item: `${collection}/:id`, rollback: `${collection}/:id/rollback`, versions: `${collection}/:id/versions` };
}

function notFound(): CellgateError {
  return new CellgateError('NOT_FOUND', 'Resource not found.');
}

/** The workspace/cell a matched path names; 404 when a segment is not a UUID. */
export function scopeOf(params: Record<string, string>, scope: EntityScope): GovernedScope {
  if (scope === 'system-global') return {};
  const workspaceId = params.workspaceId;
  if (!isUuid(workspaceId)) throw notFound();
  if (scope === 'workspace-shared') return { workspaceId: workspaceId.toLowerCase() };
  const cellId = params.cellId;
  if (!isUuid(cellId)) throw notFound();
  return { workspaceId: workspaceId.toLowerCase(), cellId: cellId.toLowerCase() };
}

/** The record id of a matched path; 404 when it is not a UUID. */
export function idOf(params: Record<string, string>): string {
  const id = params.id;
  if (!isUuid(id)) throw notFound();
  return id.toLowerCase();
}
