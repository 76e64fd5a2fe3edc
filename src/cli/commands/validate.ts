/**
 * `cellgate validate <file>...`: checks Cell manifests, manifest-form entities or standalone entity
 * definition documents, written in YAML or JSON. Every problem comes with its line and column in
 * the source (the `$ref` file for an inlined entity). Exit 0 all valid, 1 any invalid, 2 bad
 * arguments or an unreadable / unparsable file.
 */
import { UsageError, parseCommandArgs, readDocumentFile as readDocument, runCommand } from '../args.ts';
import { FORMATS, render, type FileReport, type Format } from './validate-report.ts';
import { locate, readSource, refOpener } from './validate-source.ts';
import { confinedReference } from '../document-file.ts';
import { MAX_DOCUMENT_FILE_BYTES } from '../../limits.ts';
import { validateEntity, validateManifest } from '../../contract/validate/index.ts';
import type { ValidationResult } from '../../contract/schema/index.ts';

const help = `Usage: cellgate validate <file.yaml|file.json>... [--kind manifest|entity|entity-document] [--format text|json|sarif]

Validates a Cell manifest (apiVersion/kind: Cell), a manifest-form entity (key, name, pluralName,
fields) or a standalone entity definition document (snake_case, governance_tier). The kind is
detected from the document unless --kind is given. In a manifest, \`$schema\` is ignored and
\`spec.entities\` items of the form { $ref: ./file.yaml } are read relative to the manifest,
from its folder only. A file may hold at most ${MAX_DOCUMENT_FILE_BYTES / 1024 / 1024} MiB.

Prints "valid", or one "file:line:column: field: message" line per problem (text); --format json
prints one { file, kind, valid, errors: [{ field, message, file, line, column }] } per file;
--format sarif prints a SARIF 2.1.0 log for CI code scanning.
Exit codes: 0 all valid, 1 any invalid, 2 bad arguments or unreadable file.

Options:
  --kind <kind>     manifest, entity or entity-document (default: detected per file)
  --format <fmt>    text (default), json or sarif
  -h, --help        show this help`;

const KINDS = ['manifest', 'entity', 'entity-document'] as const;
type Kind = (typeof KINDS)[number];

type Doc = Record<string, unknown>;
const isObject = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Which validator a document belongs to. */
function detectKind(doc: unknown): Kind {
  if (!isObject(doc)) return 'manifest';
  if ('apiVersion' in doc || doc.kind === 'Cell') return 'manifest';
  if ('governance_tier' in doc || 'permissions' in doc) return 'entity-document';
  if ('pluralName' in doc) return 'entity';
  return typeof doc.$schema === 'string' && doc.$schema.includes('entity-definition') ? 'entity-document' : 'manifest';
}

const withoutSchema = (doc: unknown): unknown => {
  if (!isObject(doc) || !('$schema' in doc)) return doc;
  const { $schema: _schema, ...rest } = doc;
  return rest;
};

/**
 * Drops `$schema` and inlines `spec.entities` items written as `{ $ref }`, relative to the manifest
 * and only from inside its folder (a reference out of it is refused: exit 2).
 */
async function loadManifest(doc: unknown, path: string): Promise<unknown> {
  const manifest = withoutSchema(doc);
  if (!isObject(manifest) || !isObject(manifest.spec) || !Array.isArray(manifest.spec.entities)) return manifest;
  const entities = await Promise.all(
    manifest.spec.entities.map(async (item: unknown) =>
      isObject(item) && typeof item.$ref === 'string' ? withoutSchema(await readDocument(await confinedReference(path, item.$ref))) : item,
    ),
  );
  return { ...manifest, spec: { ...manifest.spec, entities } };
}

async function validateAs(kind: Kind, doc: unknown, path: string): Promise<ValidationResult> {
  if (kind === 'manifest') return validateManifest(await loadManifest(doc, path));
  if (kind === 'entity') return validateEntity(withoutSchema(doc));
  const { validateEntityDocument } = await import('../../entity-document/index.ts');
  return validateEntityDocument(doc);
}

/** Runs `cellgate validate`. */
export async function run(args: string[]): Promise<number> {
  return runCommand('validate', help, args, async () => {
    const { values, positionals } = parseCommandArgs(args, { kind: { type: 'string' }, format: { type: 'string' } }, true);
    if (positionals.length === 0) throw new UsageError('missing <file>; run "cellgate validate --help"');
    if (values.kind !== undefined && !(KINDS as readonly string[]).includes(values.kind)) {
      throw new UsageError(`--kind must be one of ${KINDS.join(', ')}, got "${values.kind}"`);
    }
    const format = (values.format ?? 'text') as Format;
    if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${format}"`);
    const openRef = refOpener();
    const reports: FileReport[] = [];
    for (const file of positionals) {
      const source = await readSource(file);
      const kind = (values.kind as Kind | undefined) ?? detectKind(source.value);
      const result = await validateAs(kind, source.value, file);
      const errors = await Promise.all(result.errors.map(async (issue) => ({ ...issue, ...(await locate(source, issue.field, openRef)) })));
      reports.push({ file, kind, valid: result.valid, errors });
    }
    console.log(render(reports, format));
    return reports.every((report) => report.valid) ? 0 : 1;
  });
}
