/**
 * Validation of Cell manifests and their parts: the size bounds first (one `root` issue for a
 * document too deep or too big), then the zod schema (structural problems, dot paths), then, only
 * if that passed, the semantic rule table (bracket-key paths). Never throws, for any input; never
 * lists more than 100 issues (`errorsOmitted` counts the rest).
 */
import {
  CellManifestSchema,
  EntityDefinitionSchema,
  PageDefinitionSchema,
  type CellManifest,
  type ValidationIssue,
  type ValidationResult,
} from '../schema/index.ts';
import { parseOptions, toValidationIssues } from '../schema/messages.ts';
import { compileQuickCheck, type QuickCheck } from '../schema/quick-check.ts';
import { installIssueBudget } from '../../validation/issue-budget.ts';
import { entityGroup, ruleGroups, allRules } from './rules/index.ts';
import { entityAt, manifestTargets, pageAt, runRules } from './run-rules.ts';
import { documentBoundsIssue, validationResult } from '../../validation/bounds.ts';

// Parses below stop collecting issues soon after a result could list them all.
for (const schema of [CellManifestSchema, EntityDefinitionSchema, PageDefinitionSchema]) installIssueBudget(schema);

/** Outcome of checking a manifest: the parsed manifest exactly when there is no problem. */
export type ManifestCheck = { ok: true; manifest: CellManifest } | { ok: false; errors: ValidationIssue[] };

const result = validationResult;

/**
 * Runs a check after the size bounds (unless the caller proved them: `bounded`), and turns any
 * exception (a last line of defence: the bounds already keep recursion shallow) into a root-level
 * problem.
 */
function guarded<T>(input: unknown, run: () => T, fallback: (errors: ValidationIssue[]) => T, bounded = false): T {
  const tooBig = bounded ? undefined : documentBoundsIssue(input);
  if (tooBig) return fallback([tooBig]);
  try {
    return run();
  } catch (error) {
    const message = error instanceof RangeError ? 'Document is nested too deeply to validate' : 'Document could not be validated';
    return fallback([{ field: 'root', message }]);
  }
}

/** Structural then semantic check of a manifest; returns the parsed (defaults filled) manifest when valid. */
export function checkManifest(input: unknown): ManifestCheck {
  return guarded<ManifestCheck>(
    input,
    () => {
      const parsed = CellManifestSchema.safeParse(input, parseOptions);
      if (!parsed.success) return { ok: false, errors: toValidationIssues(parsed.error.issues) };
      const errors = runRules(allRules, manifestTargets(parsed.data));
      return errors.length === 0 ? { ok: true, manifest: parsed.data } : { ok: false, errors };
    },
    (errors) => ({ ok: false, errors }),
  );
}

let quickManifest: QuickCheck | undefined;

/**
 * Validates a Cell manifest (CellManifestV1): structure, then every semantic rule.
 *
 * A structurally valid document (the common case) is proven so by a check compiled from the same
 * zod schema, without building zod's output or issues, and goes straight to the rules, which read
 * no defaulted member. Anything not proven takes the full zod parse, so messages are zod's.
 *
 * @example
 * const { valid, errors } = validateManifest(JSON.parse(text));
 * if (!valid) for (const e of errors) console.log(`${e.field}: ${e.message}`);
 */
export function validateManifest(input: unknown): ValidationResult {
  return guarded(input, () => manifestResult(input), result);
}

/**
 * {@link validateManifest} for a manifest the caller already knows to be within the document
 * bounds (see `withinBoundsByLength`): the same answer, without the walk that proves them.
 */
export function validateBoundedManifest(input: unknown): ValidationResult {
  return guarded(input, () => manifestResult(input), result, true);
}

/**
 * {@link validateManifest} for a manifest a compiled check of the same schema already proved
 * structurally valid and within the document bounds: only the semantic rules run.
 */
export function validateProvenManifest(manifest: CellManifest): ValidationResult {
  return guarded(manifest, () => result(runRules(allRules, manifestTargets(manifest))), result, true);
}

function manifestResult(input: unknown): ValidationResult {
  quickManifest ??= compileQuickCheck(CellManifestSchema);
  if (quickManifest(input)) return result(runRules(allRules, manifestTargets(input as CellManifest)));
  const parsed = CellManifestSchema.safeParse(input, parseOptions);
  return result(parsed.success ? runRules(allRules, manifestTargets(parsed.data)) : toValidationIssues(parsed.error.issues));
}

/**
 * Validates one manifest-form EntityDefinition: structure, then the entity and capability rules
 * (rules that need the whole manifest, such as relation targets, are skipped). Semantic paths are
 * prefixed `spec.entities[<key>]` as inside a manifest.
 *
 * @example
 * validateEntity({ key: 'customer', name: 'Customer', pluralName: 'Customers', fields: [] }); // { valid: true, errors: [] }
 */
export function validateEntity(input: unknown): ValidationResult {
  return guarded(
    input,
    () => {
      const parsed = EntityDefinitionSchema.safeParse(input, parseOptions);
      if (!parsed.success) return result(toValidationIssues(parsed.error.issues));
      const entity = parsed.data;
      return result(runRules(entityGroup, { pages: [], entities: [{ entity, at: entityAt(entity), index: undefined }] }));
    },
    result,
  );
}

/** `spec.pages[home].entity` → `entity`: a page validated alone reports paths inside the page. */
function relativeTo(at: string, errors: ValidationIssue[]): ValidationIssue[] {
  const prefix = `${at}.`;
  return errors.map(({ field, message }) => ({ field: field.startsWith(prefix) ? field.slice(prefix.length) : field, message }));
}

/**
 * Validates one PageDefinition: structure, then the rules about a single page (entity by type).
 * Paths are relative to the page (`path`, `entity`, `menu.order`), as the public service reports
 * them.
 *
 * @example
 * validatePage({ key: 'home', type: 'dashboard', title: 'Home', path: '/' }); // { valid: true, errors: [] }
 */
export function validatePage(input: unknown): ValidationResult {
  return guarded(
    input,
    () => {
      const parsed = PageDefinitionSchema.safeParse(input, parseOptions);
      if (!parsed.success) return result(toValidationIssues(parsed.error.issues));
      const page = parsed.data;
      const at = pageAt(page);
      return result(relativeTo(at, runRules(ruleGroups.page, { pages: [{ page, at, index: undefined }], entities: [] })));
    },
    result,
  );
}
