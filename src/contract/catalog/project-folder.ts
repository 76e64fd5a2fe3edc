/**
 * Local mode of the primitive registry, without a file system of its own: the host injects a
 * {@link ProjectFolder} (on Node, Bun and Deno `nodeProjectFolder(dir)` from `cellgate/node`), and
 * this module reads `primitives.yaml` and the contract files it lists through it. Keeping the file
 * access behind an interface is what keeps the root entry runtime-neutral.
 */
import { parse } from 'yaml';
import { ConfigurationError } from '../../errors.ts';
import { PROJECT_CONFIG_FILE, ProjectConfigSchema, emptyProjectConfig, type ProjectConfig } from './project-config.ts';
import { issuePath, parseOptions } from './props-issues.ts';

/** A file of a scaffold: `create` refuses to overwrite, `replace` updates the registry file. */
export interface ScaffoldWrite {
  /** Path relative to the project folder, with `/` separators. */
  path: string;
  content: string;
  mode: 'create' | 'replace';
}

/**
 * File access of local mode, supplied by the host. Paths are relative to the folder, with `/`
 * separators; an implementation must never read or write outside the folder.
 *
 * @example
 * import { nodeProjectFolder } from 'cellgate/node';
 * createContractHandler({ projectFolder: nodeProjectFolder('./ui') });
 */
export interface ProjectFolder {
  /**
   * Opens the folder and answers a name unique to it (on a file system, its real path): scaffolds
   * into one folder run one after another. Rejects with an Error saying why (missing, not a folder).
   */
  open(): Promise<string>;
  /**
   * Text of a file below the folder, or `undefined` when it does not exist. Rejects with an Error
   * saying why when the path leads outside the folder or cannot be read.
   */
  read(path: string): Promise<string | undefined>;
  /**
   * Writes scaffold files. Every target is checked before anything is written: it stays inside
   * the folder and a `create` target does not exist yet. Rejects with a CellgateError
   * (`VALIDATION_ERROR` for a target outside the folder, `CONFLICT` for an existing file).
   */
  write(files: readonly ScaffoldWrite[]): Promise<void>;
}

/** True when `value` has the three methods of a {@link ProjectFolder}. */
export function isProjectFolder(value: unknown): value is ProjectFolder {
  const folder = value as Partial<ProjectFolder> | null;
  return typeof folder === 'object' && folder !== null && ['open', 'read', 'write'].every((name) => typeof folder[name as keyof ProjectFolder] === 'function');
}

/** A contract document read from the project folder, not yet validated. */
export interface ProjectContractSource {
  /** Path of the contract file relative to the project folder, for error messages. */
  file: string;
  /** Key and version the registry file declares for it; they must match the contract. */
  key: string;
  version: string;
  document: unknown;
}

/** The project folder, opened: its name (see {@link ProjectFolder.open}), registry file and contracts. */
export interface OpenedProjectFolder {
  root: string;
  config: ProjectConfig;
  contracts: ProjectContractSource[];
}

function parseYaml(text: string, label: string): unknown {
  try {
    return parse(text);
  } catch (error) {
    throw new ConfigurationError(label, `not valid YAML (${(error as Error).message.split('\n')[0]})`);
  }
}

/** The message of a rejection from the folder, as the reason of a configuration error. */
function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads `primitives.yaml` (absent = no custom primitives) and every contract file it lists.
 * Throws {@link ConfigurationError} naming the file and the offending path.
 */
export async function openProjectFolder(folder: ProjectFolder, optionPath = 'projectFolder'): Promise<OpenedProjectFolder> {
  const root = await folder.open().catch((error: unknown) => Promise.reject(new ConfigurationError(optionPath, reason(error))));
  const text = await folder.read(PROJECT_CONFIG_FILE).catch((error: unknown) => Promise.reject(new ConfigurationError(PROJECT_CONFIG_FILE, reason(error))));
  if (text === undefined) return { root, config: emptyProjectConfig(), contracts: [] };
  const parsed = ProjectConfigSchema.safeParse(parseYaml(text, PROJECT_CONFIG_FILE) ?? {}, parseOptions);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigurationError(issuePath(PROJECT_CONFIG_FILE, issue.path, ':'), issue.message);
  }

  const contracts: ProjectContractSource[] = [];
  for (const [index, entry] of (parsed.data.primitives ?? []).entries()) {
    const label = `${PROJECT_CONFIG_FILE}:primitives.${index}.contract`;
    const contract = await folder.read(entry.contract).catch((error: unknown) => Promise.reject(new ConfigurationError(label, reason(error))));
    if (contract === undefined) throw new ConfigurationError(label, `contract file "${entry.contract}" does not exist`);
    contracts.push({ file: entry.contract, key: entry.key, version: entry.version, document: parseYaml(contract, entry.contract) });
  }
  return { root, config: { ...parsed.data, primitives: parsed.data.primitives ?? [] }, contracts };
}
