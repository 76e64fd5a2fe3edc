/** Runs the rule table over parsed documents and collects `{ field, message }` problems. */
import type { CellManifest, EntityDefinition, PageDefinition, ValidationIssue } from '../schema/index.ts';
import { isClean } from './rules/clean-pass.ts';
import { keyed, keysOf } from './rules/helpers.ts';
import { allRules, type AnyRule, type ManifestIndex, type Report } from './rules/index.ts';
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

/** Lookups over the entities and pages of `manifest`. */
function manifestIndex({ spec }: CellManifest): ManifestIndex {
  return {
    entities: new Map((spec.entities ?? []).map((entity) => [entity.key, entity])),
    pageKeys: new Set((spec.pages ?? []).map((page) => page.key)),
  };
}

/**
 * The rule targets of a whole manifest, built on first use: a clean document (see
 * {@link runRules}) never needs its index, subjects or paths.
 */
class ManifestTargets implements RuleTargets {
  /** The parsed manifest. */
  readonly document: CellManifest;
  capabilities?: readonly CapabilitySubject[];
  #manifest: RuleSubjects['manifest'] | undefined;
  #pages: PageSubject[] | undefined;
  #entities: EntitySubject[] | undefined;

  constructor(document: CellManifest) {
    this.document = document;
  }

  get manifest(): RuleSubjects['manifest'] {
    return (this.#manifest ??= { manifest: this.document, index: manifestIndex(this.document) });
  }

  get pages(): readonly PageSubject[] {
    const { index } = this.manifest;
    return (this.#pages ??= (this.document.spec.pages ?? []).map((page) => ({ page, at: pageAt(page), index })));
  }

  get entities(): readonly EntitySubject[] {
    const { index } = this.manifest;
    return (this.#entities ??= (this.document.spec.entities ?? []).map((entity) => ({ entity, at: entityAt(entity), index })));
  }
}

/** Builds the rule targets of a parsed manifest. */
export function manifestTargets(manifest: CellManifest): RuleTargets {
  return new ManifestTargets(manifest);
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
    const { entity } = subject;
    // One lookup per entity: a capability per transition stays linear.
    const transitionKeys = entity.lifecycle && keysOf(entity.lifecycle.transitions);
    for (const capability of entity.capabilities ?? []) {
      out.push({ entity, index: subject.index, capability, transitionKeys, at: keyed(`${subject.at}.capabilities`, capability.key) });
    }
  }
  return out;
}

/**
 * Runs `rules` in order over `targets`; each rule covers every subject before the next rule runs.
 *
 * The whole table over a whole manifest first takes one pass that proves most documents clean
 * (`rules/clean-pass.ts`); the table itself runs only when that pass finds something, so the
 * problems and their order are always the table's.
 */
export function runRules(rules: readonly AnyRule[], targets: RuleTargets): ValidationIssue[] {
  if (rules === allRules && targets instanceof ManifestTargets && isClean(targets.document)) return [];
  return runEveryRule(rules, targets);
}

/** {@link runRules} without the clean-document shortcut: every rule, rule-major. */
export function runEveryRule(rules: readonly AnyRule[], targets: RuleTargets): ValidationIssue[] {
  const errors: ValidationIssue[] = [];
  // Bound, not a named closure: see docs/architecture.md, "Performance model".
  const report: Report = pushIssue.bind(errors);
  for (const rule of rules) runRule(rule, targets, report);
  return errors;
}

function pushIssue(this: ValidationIssue[], field: string, message: string): void {
  this.push({ field, message });
}
