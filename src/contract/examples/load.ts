/**
 * Turns the bundled YAML text of an example into the JSON the API answers (docs/decisions/A11.md): parse,
 * drop `$schema`, inline `$ref` entity files. Each example is parsed once and memoised.
 */
import { parse } from 'yaml';
import { CellgateError } from '../../errors.ts';
import { exampleCatalog, type ExampleContent, type ExampleEntry } from './catalog.ts';
import { exampleFiles } from './files.generated.ts';

const catalogKeys = new Set(exampleCatalog.map((entry) => entry.key));
const parsed = new Map<string, ExampleContent>();

/** `./entities/x.yaml` relative to `crm-manifest.yaml` → `entities/x.yaml`. */
function resolveRef(from: string, ref: string): string {
  const segments = from.split('/').slice(0, -1);
  for (const segment of ref.split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '.' && segment !== '') segments.push(segment);
  }
  return segments.join('/');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses one bundled file and inlines the `$ref` items of `spec.entities`, relative to it. */
function loadFile(path: string): ExampleContent {
  const text = exampleFiles[path];
  // The generated module and the catalog are checked against each other by a unit test.
  if (text === undefined) throw new Error(`example file "${path}" is not bundled; run src/contract/examples/generate.ts`);
  const document = parse(text) as Record<string, unknown>;
  delete document.$schema;
  const spec = document.spec;
  if (isObject(spec) && Array.isArray(spec.entities)) {
    spec.entities = spec.entities.map((item: unknown) => (isObject(item) && typeof item.$ref === 'string' ? loadFile(resolveRef(path, item.$ref)) : item));
  }
  return document;
}

/** The example catalog: `{ key, title, description, entities, format }` per example. */
export function listExamples(): ExampleEntry[] {
  return exampleCatalog.map((entry) => ({ ...entry, entities: [...entry.entities] }));
}

/**
 * One example as JSON: a manifest with entities inlined, or an EntityDefinition for `entities/*`.
 * Each call returns a fresh copy. Unknown key → `NOT_FOUND`.
 *
 * @example
 * getExample('entities/customer.entity').key; // 'customer'
 */
export function getExample(key: string): ExampleContent {
  if (!catalogKeys.has(key)) {
    throw new CellgateError('NOT_FOUND', `Example "${key}" not found. Call list_examples (GET /api/examples) to see the available keys.`);
  }
  let document = parsed.get(key);
  if (!document) {
    document = loadFile(`${key}.yaml`);
    parsed.set(key, document);
  }
  return structuredClone(document);
}
