/**
 * What every contract answer may depend on besides its own parameters: the primitive registry
 * (core catalog plus the host's custom contracts), the request body limit and the optional project
 * folder. Built once per handler (or per MCP stdio server) and shared by REST and MCP, so both
 * see the same custom primitives.
 */
import { createPrimitiveRegistry, type PrimitiveContractInput, type PrimitiveRegistry } from './catalog/index.ts';
import { isProjectFolder, type ProjectFolder } from './catalog/project-folder.ts';
import { ConfigurationError } from '../errors.ts';
import { DEFAULT_BODY_LIMIT } from '../http/body.ts';

/** Options that shape a {@link ContractContext}. All optional. */
export interface ContractContextOptions {
  /**
   * Custom primitive contracts (docs/decisions/A09.md), listed after the 30 core entries with
   * `source: "custom"`. A key that shadows a core key is a configuration error.
   * @default []
   */
  primitives?: readonly PrimitiveContractInput[];
  /**
   * Project folder ("local mode"): custom primitives are also loaded from its `primitives.yaml`,
   * and `scaffold_primitive` writes its files inside it (never outside). Without it, scaffolding
   * returns the files as data and writes nothing. The folder is injected so this entry needs no
   * file system: on Node, Bun and Deno use `nodeProjectFolder(dir)` from `cellgate/node`.
   * @default undefined
   * @example nodeProjectFolder('./ui')
   */
  projectFolder?: ProjectFolder;
  /**
   * Replaced by {@link ContractContextOptions.projectFolder}: a plain path needs a file system,
   * which the root entry does not import. Passing it is a configuration error that says so.
   * @deprecated use `projectFolder: nodeProjectFolder(dir)` from `cellgate/node`.
   */
  projectDir?: never;
  /**
   * Largest accepted request body in bytes; larger bodies get 413 `PAYLOAD_TOO_LARGE`.
   * @default 1048576 (1 MiB)
   */
  bodyLimit?: number;
}

/**
 * The shared state of the contract services. Read-only after construction.
 *
 * @example
 * const context = createContractContext({ bodyLimit: 256 * 1024 });
 * listPrimitives(context, { category: 'input' });
 */
export interface ContractContext {
  /** Core catalog plus custom primitives. */
  readonly registry: PrimitiveRegistry;
  /** Request body limit in bytes. */
  readonly bodyLimit: number;
  /** Project folder for local mode, or `undefined`. */
  readonly projectFolder: ProjectFolder | undefined;
  /**
   * Resolves once the project folder's custom primitives are loaded (at once without a project
   * folder); rejects with a ConfigurationError for a bad `primitives.yaml`. Hosts may await it at
   * start-up to fail fast; the handler awaits it before answering.
   */
  readonly ready: Promise<void>;
}

/**
 * Validates the options and builds the context. Throws {@link ConfigurationError} naming the bad
 * option (`options.bodyLimit`, `options.primitives.0.key`, …).
 */
export function createContractContext(options: ContractContextOptions = {}, path = 'options'): ContractContext {
  const { bodyLimit = DEFAULT_BODY_LIMIT, projectFolder, primitives = [] } = options;
  if (!Number.isSafeInteger(bodyLimit) || bodyLimit < 1) {
    throw new ConfigurationError(`${path}.bodyLimit`, 'must be a positive integer number of bytes');
  }
  if ((options as { projectDir?: unknown }).projectDir !== undefined) {
    throw new ConfigurationError(`${path}.projectDir`, "has moved: pass projectFolder: nodeProjectFolder(dir), imported from 'cellgate/node'");
  }
  if (projectFolder !== undefined && !isProjectFolder(projectFolder)) {
    throw new ConfigurationError(`${path}.projectFolder`, "must be a project folder (open, read, write), e.g. nodeProjectFolder(dir) from 'cellgate/node'");
  }
  if (!Array.isArray(primitives)) {
    throw new ConfigurationError(`${path}.primitives`, 'must be an array of primitive contracts');
  }
  // The registry raises its own ConfigurationError (e.g. a custom key shadowing a core key).
  const registry = createPrimitiveRegistry({
    custom: primitives,
    optionsPath: `${path}.primitives`,
    ...(projectFolder === undefined ? {} : { projectFolder }),
  });
  return Object.freeze({ registry, bodyLimit, projectFolder, ready: registry.ready });
}
