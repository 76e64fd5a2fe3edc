/**
 * File access for the local mode of the primitive registry: reading `primitives.yaml` and its
 * contract files, and writing a scaffold. The only module of the catalog that touches the file
 * system; it loads `node:fs/promises` and `node:path` with dynamic `import()` so the root entry of
 * the package stays runtime-neutral (nothing here runs unless a host passes `projectDir`).
 */
import { parse } from 'yaml';
import { CellgateError, ConfigurationError } from '../../errors.ts';
import { PROJECT_CONFIG_FILE, ProjectConfigSchema, emptyProjectConfig, type ProjectConfig } from './project-config.ts';
import { issuePath, parseOptions } from './props-issues.ts';

type Fs = typeof import('node:fs/promises');
type Path = typeof import('node:path');

async function nodeModules(): Promise<{ fs: Fs; path: Path }> {
  const [fs, path] = await Promise.all([import('node:fs/promises'), import('node:path')]);
  return { fs, path };
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** True when `target` is `root` itself or below it. */
function isInside(path: Path, root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
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

/** The project folder, opened: its real path and registry file. */
export interface ProjectFolder {
  root: string;
  config: ProjectConfig;
  contracts: ProjectContractSource[];
}

async function readYaml(fs: Fs, file: string, label: string): Promise<unknown> {
  const text = await fs.readFile(file, 'utf8');
  try {
    return parse(text);
  } catch (error) {
    throw new ConfigurationError(label, `not valid YAML (${(error as Error).message.split('\n')[0]})`);
  }
}

/**
 * Reads `primitives.yaml` (absent = no custom primitives) and every contract file it lists.
 * Throws {@link ConfigurationError} naming the file and the offending path.
 */
export async function openProjectFolder(projectDir: string): Promise<ProjectFolder> {
  const { fs, path } = await nodeModules();
  let root: string;
  try {
    root = await fs.realpath(projectDir);
    if (!(await fs.stat(root)).isDirectory()) throw new ConfigurationError('projectDir', `"${projectDir}" is not a directory`);
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw new ConfigurationError('projectDir', `"${projectDir}" does not exist or cannot be read`);
  }

  let raw: unknown;
  try {
    raw = await readYaml(fs, path.join(root, PROJECT_CONFIG_FILE), PROJECT_CONFIG_FILE);
  } catch (error) {
    if (isMissing(error)) return { root, config: emptyProjectConfig(), contracts: [] };
    throw error;
  }
  const parsed = ProjectConfigSchema.safeParse(raw ?? {}, parseOptions);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigurationError(issuePath(PROJECT_CONFIG_FILE, issue.path, ':'), issue.message);
  }

  const contracts: ProjectContractSource[] = [];
  for (const [index, entry] of (parsed.data.primitives ?? []).entries()) {
    const label = `${PROJECT_CONFIG_FILE}:primitives.${index}.contract`;
    const file = path.resolve(root, entry.contract);
    if (!isInside(path, root, file)) throw new ConfigurationError(label, `"${entry.contract}" points outside the project folder`);
    let real: string;
    try {
      real = await fs.realpath(file);
    } catch {
      throw new ConfigurationError(label, `contract file "${entry.contract}" does not exist`);
    }
    if (!isInside(path, root, real)) throw new ConfigurationError(label, `"${entry.contract}" resolves outside the project folder`);
    contracts.push({ file: entry.contract, key: entry.key, version: entry.version, document: await readYaml(fs, real, entry.contract) });
  }
  return { root, config: { ...parsed.data, primitives: parsed.data.primitives ?? [] }, contracts };
}

/** A file of a scaffold: `create` refuses to overwrite, `replace` updates the registry file. */
export interface ScaffoldWrite {
  path: string;
  content: string;
  mode: 'create' | 'replace';
}

/**
 * Writes scaffold files below `root` (the real path of the project folder). Every target is
 * checked before anything is written: it must stay inside the folder after symlinks are resolved,
 * and a `create` target must not exist yet. Throws CellgateError (VALIDATION_ERROR / CONFLICT).
 */
export async function writeProjectFiles(root: string, files: readonly ScaffoldWrite[]): Promise<void> {
  const { fs, path } = await nodeModules();
  const targets: { file: string; write: ScaffoldWrite }[] = [];
  for (const write of files) {
    const file = path.resolve(root, write.path);
    if (path.isAbsolute(write.path) || !isInside(path, root, file) || file === root) {
      throw new CellgateError('VALIDATION_ERROR', `Refusing to write "${write.path}": it is outside the project folder.`, {
        details: { fields: [{ path: 'name', message: 'Must name a file inside the project folder' }] },
      });
    }
    // The nearest existing ancestor must resolve inside the folder, or a symlinked directory could
    // carry the write elsewhere.
    let ancestor = path.dirname(file);
    while (!(await exists(fs, ancestor))) ancestor = path.dirname(ancestor);
    if (!isInside(path, root, await fs.realpath(ancestor))) {
      throw new CellgateError('VALIDATION_ERROR', `Refusing to write "${write.path}": a symbolic link leads outside the project folder.`, {
        details: { fields: [{ path: 'name', message: 'Resolves outside the project folder' }] },
      });
    }
    const stat = await fs.lstat(file).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error)));
    if (stat && write.mode === 'create') throw new CellgateError('CONFLICT', `"${write.path}" already exists in the project folder; nothing was written.`);
    if (stat?.isSymbolicLink()) {
      throw new CellgateError('VALIDATION_ERROR', `Refusing to replace "${write.path}": it is a symbolic link.`, {
        details: { fields: [{ path: 'name', message: 'Target is a symbolic link' }] },
      });
    }
    // A second hard link means the same file also lives elsewhere, possibly outside the folder.
    if (stat && stat.nlink > 1) {
      throw new CellgateError('VALIDATION_ERROR', `Refusing to replace "${write.path}": it has other hard links.`, {
        details: { fields: [{ path: 'name', message: 'Target has other hard links' }] },
      });
    }
    targets.push({ file, write });
  }
  for (const { file, write } of targets) {
    await fs.mkdir(path.dirname(file), { recursive: true });
    try {
      if (write.mode === 'create') await fs.writeFile(file, write.content, { encoding: 'utf8', flag: 'wx' });
      else await replaceFile(fs, path, file, write.content);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new CellgateError('CONFLICT', `"${write.path}" already exists in the project folder.`);
      throw error;
    }
  }
}

/**
 * Replaces a file through a fresh temporary file beside it and a rename: a reader sees the old or
 * the new content, never a half-written file, and the write lands in a new file rather than in
 * whatever the old name pointed at.
 */
async function replaceFile(fs: Fs, path: Path, file: string, content: string): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomUUID()}.tmp`);
  await fs.writeFile(temporary, content, { encoding: 'utf8', flag: 'wx' });
  try {
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

async function exists(fs: Fs, file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}
