/** Rules over `spec.roles`. */
import { keyed, repeatedValues, hasRepeats } from './helpers.ts';
import { rule } from './types.ts';

/** Role rules, in the order they run. */
export const roleRules = [
  rule({
    id: 'role.unique-keys',
    scope: 'manifest',
    description: 'Role keys are unique.',
    check: ({ manifest }, report) => {
      for (const key of repeatedValues((manifest.spec.roles ?? []).map((role) => role.key))) {
        report('spec.roles', `role keys must be unique (duplicate: "${key}")`);
      }
    },
  }),
  rule({
    id: 'role.unique-scopes',
    scope: 'manifest',
    description: 'A role lists each scope and identity mapping once.',
    check: ({ manifest }, report) => {
      for (const role of manifest.spec.roles ?? []) {
        const at = keyed('spec.roles', role.key);
        if (hasRepeats(role.scopes)) report(`${at}.scopes`, 'scopes must be unique');
        if (hasRepeats(role.identityMappings ?? [])) report(`${at}.identityMappings`, 'identityMappings must be unique');
      }
    },
  }),
];
