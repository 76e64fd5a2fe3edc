/**
 * The semantic rule table: every rule once, grouped and ordered as they run (docs/decisions/A04.md,
 * docs/contract-conventions.md#semantic-rules: pages, navigation, entities, roles). The validators run these groups;
 * the schema descriptions list their `description`s.
 */
import { manifestRules } from './manifest-rules.ts';
import { pageRules } from './page-rules.ts';
import { navigationRules } from './navigation-rules.ts';
import { fieldRules } from './field-rules.ts';
import { entityKeyRule, lifecycleRules, relationRules } from './entity-rules.ts';
import { capabilityRules } from './capability-rules.ts';
import { roleRules } from './role-rules.ts';
import type { AnyRule } from './types.ts';

export type { AnyRule, ManifestIndex, Report, Rule } from './types.ts';

/** Rules about one entity (manifest form), incl. its capabilities, as run by `validateEntity`. */
export const entityGroup: readonly AnyRule[] = [entityKeyRule, ...fieldRules, ...relationRules, ...lifecycleRules, ...capabilityRules];

/** Every rule group in run order. */
export const ruleGroups = {
  manifest: manifestRules as readonly AnyRule[],
  page: pageRules as readonly AnyRule[],
  navigation: navigationRules as readonly AnyRule[],
  entity: entityGroup,
  role: roleRules as readonly AnyRule[],
} as const;

/** All rules, in run order. */
export const allRules: readonly AnyRule[] = Object.values(ruleGroups).flat();

/** Capability rules alone (for the capability schema description). */
export const capabilityGroup: readonly AnyRule[] = capabilityRules;
