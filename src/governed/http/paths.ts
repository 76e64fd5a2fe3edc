/**
 * Resource paths by scope (docs/governed-conventions.md#paths, docs/decisions/B03.md) under an optional
 * `basePath`, as the public `paths` of a resource.
 */
import { ConfigurationError } from '../../errors.ts';
import type { EntityScope } from '../../storage/types.ts';
import { SCOPE_PREFIX, TARGET_SUFFIX } from './operations.ts';

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** Path names a system-global resource may not take: they are the other routes under `/v1`. */
const RESERVED_NAMES = new Set(['workspaces', 'audit']);

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

/** The route patterns of one resource. */
export interface ResourcePatterns {
  collection: string;
  item: string;
  rollback: string;
  versions: string;
}

/** Route patterns of a resource of `scope` named `name` under `basePath` (`:name` for path parameters). */
export function resourcePatterns(scope: EntityScope, name: string, basePath: string): ResourcePatterns {
  const collection = `${basePath}${SCOPE_PREFIX[scope].replace(/\{(\w+)\}/g, ':$1')}/${name}`;
  const at = (target: 'item' | 'rollback' | 'versions') => collection + TARGET_SUFFIX[target].replace(/\{(\w+)\}/g, ':$1');
  return { collection, item: at('item'), rollback: at('rollback'), versions: at('versions') };
}
