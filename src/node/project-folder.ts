/**
 * `nodeProjectFolder(dir)`: the project folder of local mode on a real file system (Node, Bun,
 * Deno). Reads stay inside the folder after symbolic links are resolved; scaffold writes are
 * checked before anything is written and never overwrite a file they did not mean to.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { CellgateError, ConfigurationError } from '../errors.ts';
import type { ProjectFolder, ScaffoldWrite } from '../contract/catalog/project-folder.ts';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** True when `target` is `root` itself or below it. */
function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The folder `dir` (relative to the working directory) as the project folder of local mode:
 * custom primitives load from its `primitives.yaml`, and `scaffold_primitive` writes inside it.
 * Throws {@link ConfigurationError} at once for an empty path; a missing folder is reported when
 * the registry opens it (through `ready` and every read).
 *
 * @example
 * import { createContractHandler } from 'cellgate';
 * import { nodeProjectFolder } from 'cellgate/node';
 * const handler = createContractHandler({ projectFolder: nodeProjectFolder('./ui') });
 */
export function nodeProjectFolder(dir: string): ProjectFolder {
  if (typeof dir !== 'string' || dir.trim() === '') throw new ConfigurationError('projectFolder', 'must be a non-empty folder path');
  let opening: Promise<string> | undefined;
  const open = () =>
    (opening ??= (async () => {
      let root: string;
      try {
        root = await fs.realpath(dir);
      } catch {
        throw new Error(`"${dir}" does not exist or cannot be read`);
      }
      if (!(await fs.stat(root)).isDirectory()) throw new Error(`"${dir}" is not a directory`);
      return root;
    })());
  // A failed open may succeed later (the folder gets created): do not keep the rejection.
  const reopenable = () => open().catch((error: unknown) => ((opening = undefined), Promise.reject(error)));
  return {
    open: reopenable,
    async read(name) {
      const root = await reopenable();
      const file = path.resolve(root, name);
      if (!isInside(root, file)) throw new Error(`"${name}" points outside the project folder`);
      let real: string;
      try {
        real = await fs.realpath(file);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw new Error(`"${name}" cannot be read`);
      }
      if (!isInside(root, real)) throw new Error(`"${name}" resolves outside the project folder`);
      return fs.readFile(real, 'utf8');
    },
    async write(files) {
      await writeProjectFiles(await reopenable(), files);
    },
  };
}

/**
 * Writes scaffold files below `root` (the real path of the project folder). Every target is
 * checked before anything is written: it must stay inside the folder after symlinks are resolved,
 * and a `create` target must not exist yet. Throws CellgateError (VALIDATION_ERROR / CONFLICT).
 */
async function writeProjectFiles(root: string, files: readonly ScaffoldWrite[]): Promise<void> {
  const targets: { file: string; write: ScaffoldWrite }[] = [];
  for (const write of files) {
    const file = path.resolve(root, write.path);
    if (path.isAbsolute(write.path) || !isInside(root, file) || file === root) {
      throw new CellgateError('VALIDATION_ERROR', `Refusing to write "${write.path}": it is outside the project folder.`, {
        details: { fields: [{ path: 'name', message: 'Must name a file inside the project folder' }] },
      });
    }
    // The nearest existing ancestor must resolve inside the folder, or a symlinked directory could
    // carry the write elsewhere.
    let ancestor = path.dirname(file);
    while (!(await exists(ancestor))) ancestor = path.dirname(ancestor);
    if (!isInside(root, await fs.realpath(ancestor))) {
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
      else await replaceFile(file, write.content);
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
async function replaceFile(file: string, content: string): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomUUID()}.tmp`);
  await fs.writeFile(temporary, content, { encoding: 'utf8', flag: 'wx' });
  try {
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}
