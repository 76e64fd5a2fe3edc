/**
 * Normalization of a valid manifest (docs/decisions/A07.md): omitted `entities`, `pages`, `roles` become
 * `[]`, an omitted `navigation` becomes `{ items: [] }`, and zod defaults are filled (governance
 * `tier-2` with rollback, dataContext `idParam: "id"`). Idempotent, and the result re-validates.
 */
import type { CellManifest, ValidationIssue } from './schema/index.ts';
import { checkManifest } from './validate/index.ts';
import { validationResult } from '../validation/bounds.ts';

/** The manifest with every optional collection present, `spec` keys in schema order. */
function fillCollections(manifest: CellManifest): CellManifest {
  const { mount, appShell, entities, pages, navigation, roles } = manifest.spec;
  return {
    ...manifest,
    spec: {
      mount,
      ...(appShell === undefined ? {} : { appShell }),
      entities: entities ?? [],
      pages: pages ?? [],
      navigation: navigation ?? { items: [] },
      roles: roles ?? [],
    },
  };
}

/** Result of {@link normalizeManifest}; a `NormalizeResult` with the manifest typed. */
export type NormalizedManifest = { valid: true; manifest: CellManifest; errors: [] } | { valid: false; errors: ValidationIssue[]; errorsOmitted?: number };

/**
 * Validates, then normalizes. Valid: `{ valid: true, manifest, errors: [] }` (key order valid,
 * manifest, errors). Invalid: `{ valid: false, errors }` with no `manifest` member (and
 * `errorsOmitted` when more than 100 issues were found). Never throws.
 *
 * @example
 * const { valid, manifest } = normalizeManifest(doc);
 * if (valid) console.log(manifest.spec.navigation); // { items: [] } when it was omitted
 */
export function normalizeManifest(input: unknown): NormalizedManifest {
  const check = checkManifest(input);
  if (!check.ok) {
    const { errors, errorsOmitted } = validationResult(check.errors);
    return errorsOmitted === undefined ? { valid: false, errors } : { valid: false, errors, errorsOmitted };
  }
  return { valid: true, manifest: fillCollections(check.manifest), errors: [] };
}
