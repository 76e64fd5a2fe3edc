/**
 * The primitive registry: the 30 core primitives plus the host's custom ones, with the answers of
 * the primitive endpoints and MCP tools (list, get, examples, props check, scaffold).
 */
import { z } from 'zod';
import { CellgateError, ConfigurationError, validationError } from '../../errors.ts';
import { structuralPath } from '../schema/messages.ts';
import type { ValidationResult } from '../../validation/results.ts';
import { documentBoundsIssue, requestValidationError, validationResult } from '../../validation/bounds.ts';
import { corePrimitives, type CorePrimitive } from './core/index.ts';
import { loadCustomPrimitive, type CustomPrimitive } from './custom-primitive.ts';
import { emptyProjectConfig, type ProjectConfig } from './project-config.ts';
import { parseOptions, toValidationIssues } from './props-issues.ts';
import { serialised } from './folder-lock.ts';
import { openProjectFolder, type ProjectFolder } from './project-folder.ts';
import { buildScaffold } from './scaffold.ts';
import { compareSemver } from './semver.ts';
import {
  PRIMITIVE_CATEGORIES,
  PRIMITIVE_SOURCES,
  ScaffoldRequestSchema,
  type CorePrimitiveEntry,
  type PrimitiveContractInput,
  type PrimitiveDetail,
  type PrimitiveEntry,
  type PrimitiveExamples,
  type ScaffoldRequest,
  type ScaffoldResult,
} from './schemas.ts';

/** Options of {@link createPrimitiveRegistry}. */
export interface PrimitiveRegistryOptions {
  /**
   * Custom primitive contracts registered by the host. A key may not repeat a core key.
   * @default []
   * @example [{ key: 'price-tag', version: '1.0.0', label: 'Price tag', category: 'display', props: { type: 'object', properties: { amount: { type: 'number', required: true } } } }]
   */
  custom?: readonly PrimitiveContractInput[];
  /**
   * Project folder (local mode): custom primitives are loaded from its `primitives.yaml`, and
   * `scaffold` writes new primitives into it. Without it, `scaffold` returns files and writes nothing.
   * Loading is asynchronous: await {@link PrimitiveRegistry.ready} before serving.
   * @default undefined
   * @example nodeProjectFolder('./ui') // from 'cellgate/node'
   */
  projectFolder?: ProjectFolder;
  /**
   * Path prefix of `custom` in configuration error messages, so a host can name its own option.
   * @default 'options.custom'
   * @example 'options.primitives'
   */
  optionsPath?: string;
}

/** Filters of {@link PrimitiveRegistry.list}. */
export interface PrimitiveListFilter {
  /** One of the primitive categories (`collection`, `input`, …, `custom`). */
  category?: string | undefined;
  /** `core` or `custom`. */
  source?: string | undefined;
}

/**
 * The catalog of UI primitives. Reads are synchronous and throw {@link CellgateError} for bad
 * parameters. In local mode the project folder is read once at creation: until `ready` resolves,
 * reads throw `SERVICE_UNAVAILABLE`, and after a failed load they rethrow its ConfigurationError.
 */
export interface PrimitiveRegistry {
  /** Resolves once custom primitives are loaded; rejects with a ConfigurationError for a bad project folder. */
  readonly ready: Promise<void>;
  /** True when a project folder is configured (scaffold writes files). */
  readonly local: boolean;
  /** Entries in catalog order (core first, then custom; newest version of each custom key). The array is shared: do not mutate it. */
  list(filter?: PrimitiveListFilter): PrimitiveEntry[];
  /** One entry with the JSON Schema of its props; NOT_FOUND for an unknown key. */
  get(key: string): PrimitiveDetail;
  /** Example props of a primitive (`version` selects a custom primitive's version). */
  examples(key: string, version?: string): PrimitiveExamples;
  /** Checks a props object against the primitive's props schema. */
  validateProps(key: string, version: string | undefined, props: unknown): ValidationResult;
  /**
   * Generates a custom primitive from a request shaped like {@link ScaffoldRequestSchema}. Writes it
   * into the project folder in local mode only (never outside it, never over an existing file).
   */
  scaffold(request: unknown): Promise<ScaffoldResult>;
}

interface RegistryState {
  root: string | undefined;
  config: ProjectConfig;
  /** Versions of each custom key, newest first, in registration order of keys. */
  custom: Map<string, CustomPrimitive[]>;
}

const coreByKey = new Map<string, CorePrimitive>(corePrimitives.map((primitive) => [primitive.key, primitive]));

function coreEntry(primitive: CorePrimitive): CorePrimitiveEntry {
  const { key, category, description, bestFor, avoidWhen } = primitive;
  return { key, category, description, bestFor, ...(avoidWhen ? { avoidWhen } : {}), source: 'core' };
}

/** Core entries are the same for every registry: built once. */
const coreEntries: readonly CorePrimitiveEntry[] = corePrimitives.map(coreEntry);
const jsonSchemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

function propsJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let cached = jsonSchemaCache.get(schema);
  if (!cached) {
    cached = z.toJSONSchema(schema) as Record<string, unknown>;
    jsonSchemaCache.set(schema, cached);
  }
  return cached;
}

const coreDetails = new Map<string, PrimitiveDetail>();

/** The answer of `get` for a core key, built once per process. */
function coreDetail(key: string): PrimitiveDetail | undefined {
  let detail = coreDetails.get(key);
  const core = coreByKey.get(key);
  if (!detail && core) {
    detail = { ...coreEntry(core), propsSchema: propsJsonSchema(core.props) };
    coreDetails.set(key, detail);
  }
  return detail;
}

function notFound(key: string): CellgateError {
  return new CellgateError('NOT_FOUND', `Primitive "${key}" not found. Call list_primitives (GET /api/primitives) to see the catalog.`);
}

function checkValue(name: 'category' | 'source', value: string | undefined, allowed: readonly string[]): void {
  if (value === undefined || value === '' || allowed.includes(value)) return;
  const message = `Unknown ${name} "${value}". Valid values: ${allowed.join(', ')}.`;
  throw validationError(message, [{ path: name, message: `Must be one of: ${allowed.join(', ')}` }]);
}

function addCustom(custom: Map<string, CustomPrimitive[]>, primitive: CustomPrimitive, label: string, separator = '.'): void {
  const { key, version } = primitive.contract;
  if (coreByKey.has(key))
    throw new ConfigurationError(`${label}${separator}key`, `"${key}" is a core primitive; a custom primitive may not replace it. Choose another key.`);
  const versions = custom.get(key) ?? [];
  if (versions.some((existing) => existing.contract.version === version)) {
    throw new ConfigurationError(`${label}${separator}version`, `primitive "${key}" version ${version} is registered twice`);
  }
  custom.set(
    key,
    [...versions, primitive].sort((a, b) => compareSemver(b.contract.version, a.contract.version)),
  );
}

async function loadState(options: PrimitiveRegistryOptions, fromOptions: Map<string, CustomPrimitive[]>): Promise<RegistryState> {
  if (options.projectFolder === undefined) return { root: undefined, config: emptyProjectConfig(), custom: fromOptions };
  const folder = await openProjectFolder(options.projectFolder);
  const custom = new Map(fromOptions);
  for (const source of folder.contracts) {
    const primitive = loadCustomPrimitive(source.document, source.file, ':');
    if (primitive.contract.key !== source.key || primitive.contract.version !== source.version) {
      throw new ConfigurationError(
        source.file,
        `declares ${primitive.contract.key}@${primitive.contract.version} but primitives.yaml lists ${source.key}@${source.version}`,
      );
    }
    addCustom(custom, primitive, source.file, ':');
  }
  return { root: folder.root, config: folder.config, custom };
}

/**
 * Creates the primitive catalog. Contracts passed in `custom` are checked immediately (a bad one
 * throws {@link ConfigurationError} naming `options.custom.<i>…`); the project folder is read once,
 * and its errors surface through `ready` and every read.
 *
 * @example
 * const registry = createPrimitiveRegistry({ custom: [priceTagContract], projectFolder: nodeProjectFolder('./ui') });
 * await registry.ready;
 * const inputs = registry.list({ category: 'input' });
 */
export function createPrimitiveRegistry(options: PrimitiveRegistryOptions = {}): PrimitiveRegistry {
  const fromOptions = new Map<string, CustomPrimitive[]>();
  const optionsPath = options.optionsPath ?? 'options.custom';
  for (const [index, contract] of (options.custom ?? []).entries()) {
    addCustom(fromOptions, loadCustomPrimitive(contract, `${optionsPath}.${index}`), `${optionsPath}.${index}`);
  }
  let state: RegistryState | undefined;
  let failure: unknown;
  const ready = loadState(options, fromOptions).then(
    (loaded) => {
      state = loaded;
    },
    (error: unknown) => {
      failure = error;
      throw error;
    },
  );
  // `ready` may be awaited late or never (reads rethrow the failure); do not report it as unhandled.
  ready.catch(() => undefined);
  if (options.projectFolder === undefined) state = { root: undefined, config: emptyProjectConfig(), custom: fromOptions };
  const listCache = new Map<string, PrimitiveEntry[]>();

  function current(): RegistryState {
    if (state) return state;
    if (failure !== undefined) throw failure;
    throw new CellgateError('SERVICE_UNAVAILABLE', 'The primitive registry is still loading the project folder; retry in a moment.');
  }

  function customVersion(state: RegistryState, key: string, version: string | undefined): CustomPrimitive {
    const versions = state.custom.get(key);
    if (!versions) throw notFound(key);
    if (version === undefined) return versions[0]!;
    const match = versions.find((candidate) => candidate.contract.version === version);
    if (!match) {
      throw new CellgateError(
        'NOT_FOUND',
        `Primitive "${key}" has no version "${version}". Available versions: ${versions.map((v) => v.contract.version).join(', ')}.`,
      );
    }
    return match;
  }

  /** The props schema and examples of a key (core or custom), honouring `version`. */
  function resolve(
    state: RegistryState,
    key: string,
    version: string | undefined,
  ): { version?: string; props: z.ZodType; examples: PrimitiveExamples['examples'] } {
    const core = coreByKey.get(key);
    if (core) {
      if (version !== undefined)
        throw new CellgateError('NOT_FOUND', `Primitive "${key}" is a core primitive and has no versions; call again without a version.`);
      return { props: core.props, examples: core.examples as PrimitiveExamples['examples'] };
    }
    const custom = customVersion(state, key, version);
    return { version: custom.contract.version, props: custom.props, examples: custom.examples };
  }

  return {
    ready,
    local: options.projectFolder !== undefined,

    list(filter = {}) {
      checkValue('category', filter.category, PRIMITIVE_CATEGORIES);
      checkValue('source', filter.source, PRIMITIVE_SOURCES);
      const state = current();
      const cacheKey = `${filter.category ?? ''}|${filter.source ?? ''}`;
      let entries = listCache.get(cacheKey);
      if (!entries) {
        const all: PrimitiveEntry[] = [...coreEntries, ...[...state.custom.values()].map((versions) => versions[0]!.entry)];
        entries = all.filter((entry) => (!filter.category || entry.category === filter.category) && (!filter.source || entry.source === filter.source));
        listCache.set(cacheKey, entries);
      }
      return entries;
    },

    get(key) {
      const state = current();
      const core = coreDetail(key);
      if (core) return core;
      const custom = customVersion(state, key, undefined);
      return { ...custom.entry, propsSchema: propsJsonSchema(custom.props) };
    },

    examples(key, version) {
      const resolved = resolve(current(), key, version);
      return { key, ...(resolved.version ? { version: resolved.version } : {}), examples: resolved.examples };
    },

    validateProps(key, version, props) {
      const resolved = resolve(current(), key, version);
      const tooBig = documentBoundsIssue(props);
      if (tooBig) return validationResult([{ ...tooBig, field: 'props' }]);
      const result = resolved.props.safeParse(props, parseOptions);
      return validationResult(result.success ? [] : toValidationIssues(result.error, 'props'));
    },

    async scaffold(input) {
      // `props` is a recursive schema: refuse absurd nesting before zod recurses into it.
      const tooBig = documentBoundsIssue(input);
      if (tooBig) throw requestValidationError('The scaffold request', [{ path: tooBig.field, message: tooBig.message }]);
      const parsed = ScaffoldRequestSchema.safeParse(input, parseOptions);
      if (!parsed.success) {
        const fields = parsed.error.issues.map((issue) => ({ path: structuralPath(issue.path), message: issue.message }));
        throw requestValidationError('The scaffold request', fields);
      }
      const request = parsed.data;
      await ready;
      const root = current().root;
      return root === undefined ? scaffoldNow(request) : serialised(root, () => scaffoldNow(request));
    },
  };

  /** Checks and writes one scaffold; in local mode it runs alone for its folder (see `serialised`). */
  async function scaffoldNow(request: ScaffoldRequest): Promise<ScaffoldResult> {
    const state = current();
    if (coreByKey.has(request.name)) throw new CellgateError('CONFLICT', `"${request.name}" is a core primitive; choose another name for a custom primitive.`);
    if (state.custom.has(request.name))
      throw new CellgateError('CONFLICT', `A custom primitive "${request.name}" already exists; choose another name or edit its contract.`);
    const { contract, files } = buildScaffold(request, state.root ? state.config : emptyProjectConfig());
    if (state.root && options.projectFolder) {
      await options.projectFolder.write(files);
      const primitive = loadCustomPrimitive(contract, files[0]!.path, ':');
      addCustom(state.custom, primitive, files[0]!.path, ':');
      state.config.primitives.push({ key: contract.key, version: contract.version, contract: files[0]!.path });
      listCache.clear();
    }
    return { contract, files: files.map(({ path, content }) => ({ path, content })), written: state.root !== undefined };
  }
}
