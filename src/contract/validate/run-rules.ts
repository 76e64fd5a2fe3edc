/** Runs the rule table over parsed documents and collects `{ field, message }` problems. */
import type { CellManifest, EntityDefinition, PageDefinition, ValidationIssue } from '../schema/index.ts';
import { keyed } from './rules/helpers.ts';
import type { AnyRule, ManifestIndex, Report } from './rules/index.ts';
import type { CapabilitySubject, EntitySubject, PageSubject, RuleSubjects } from './rules/types.ts';

/** What the rules are run over; the manifest subject is absent when a part is validated alone. */
export interface RuleTargets {
  manifest?: RuleSubjects['manifest'];
  pages: readonly PageSubject[];
  entities: readonly EntitySubject[];
  /** Every capability of `entities`, built by the first capability rule and shared by the rest. */
  capabilities?: readonly CapabilitySubject[];
}

/** Path prefix of a page's semantic problems. */
export const pageAt = (page: PageDefinition): string => keyed('spec.pages', page.key);
/** Path prefix of an entity's semantic problems (also when the entity is validated alone). */
export const entityAt = (entity: EntityDefinition): string => keyed('spec.entities', entity.key);

/** Builds the rule targets of a parsed manifest. */
export function manifestTargets(manifest: CellManifest): RuleTargets {
  const entities = manifest.spec.entities ?? [];
  const pages = manifest.spec.pages ?? [];
  const index: ManifestIndex = {
    entities: new Map(entities.map((entity) => [entity.key, entity])),
    pageKeys: new Set(pages.map((page) => page.key)),
  };
  return {
    manifest: { manifest, index },
    pages: pages.map((page) => ({ page, at: pageAt(page), index })),
    entities: entities.map((entity) => ({ entity, at: entityAt(entity), index })),
  };
}

function runRule(rule: AnyRule, targets: RuleTargets, report: Report): void {
  switch (rule.scope) {
    case 'manifest':
      if (rule.check && targets.manifest) rule.check(targets.manifest, report);
      return;
    case 'page':
      if (rule.check) for (const subject of targets.pages) rule.check(subject, report);
      return;
    case 'entity':
      if (rule.check) for (const subject of targets.entities) rule.check(subject, report);
      return;
    case 'capability':
      if (rule.check) for (const subject of (targets.capabilities ??= capabilitySubjects(targets.entities))) rule.check(subject, report);
  }
}

/** The capabilities of `entities`, each with the path prefix of its problems. */
function capabilitySubjects(entities: readonly EntitySubject[]): CapabilitySubject[] {
  const out: CapabilitySubject[] = [];
  for (const subject of entities) {
    for (const capability of subject.entity.capabilities ?? []) {
      out.push({ entity: subject.entity, index: subject.index, capability, at: keyed(`${subject.at}.capabilities`, capability.key) });
    }
  }
  return out;
}

/** Runs `rules` in order over `targets`; each rule covers every subject before the next rule runs. */
export function runRules(rules: readonly AnyRule[], targets: RuleTargets): ValidationIssue[] {
  const errors: ValidationIssue[] = [];
  const report: Report = (field, message) => {
    errors.push({ field, message });
  };
  for (const rule of rules) runRule(rule, targets, report);
  return errors;
}
