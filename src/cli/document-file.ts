/**
 * How the CLI reads the YAML/JSON documents named on its command line and the files they point
 * at: bounded in size before anything is read whole, and `$ref` references confined to the folder
 * of the document that holds them (docs/cli.md#cellgate-validate, docs/security.md).
 */
import { open, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { MAX_DOCUMENT_FILE_BYTES } from '../limits.ts';
import { UsageError } from './args.ts';

/** Longest piece of a `$ref` value a refusal quotes. */
const QUOTED_REF_LENGTH = 200;

/** Bytes read per step, so a file that grows while it is read is still cut at the bound. */
const READ_STEP = 64 * 1024;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code ?? 'read failed';

/**
 * The text of a document file, refused with a one-line {@link UsageError} (exit 2) when it cannot
 * be read, is not a regular file, or holds more than {@link MAX_DOCUMENT_FILE_BYTES}: the size is
 * checked before the file is read, and again while reading (a file may grow meanwhile).
 */
export async function readDocumentText(path: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${errorCode(error)}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UsageError(`cannot read ${path}: not a file`);
    const tooLarge = () => new UsageError(`${path} is larger than ${MAX_DOCUMENT_FILE_BYTES} bytes, the most a document file may hold`);
    if (stats.size > MAX_DOCUMENT_FILE_BYTES) throw tooLarge();
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await handle.read({ buffer: Buffer.alloc(READ_STEP) });
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > MAX_DOCUMENT_FILE_BYTES) throw tooLarge();
      parts.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(parts, total).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${path}: ${errorCode(error)}`);
  } finally {
    await handle.close();
  }
}

/** True when `target` is `folder` itself or below it. */
function isInside(folder: string, target: string): boolean {
  const path = relative(folder, target);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}

/**
 * The file a `$ref` of `fromFile` names, when it stays inside `fromFile`'s folder once symbolic
 * links are resolved; else a one-line {@link UsageError}. Without the check, `../secret.env.yaml`
 * or a link to it was read and its keys and values quoted back in validation errors.
 */
export async function confinedReference(fromFile: string, ref: string): Promise<string> {
  const folder = resolve(dirname(fromFile));
  const target = resolve(folder, ref);
  const refused = () => new UsageError(`${fromFile}: $ref "${ref.slice(0, QUOTED_REF_LENGTH)}" must name a file inside ${folder}`);
  if (isAbsolute(ref) || !isInside(folder, target)) throw refused();
  let realFolder: string;
  let realTarget: string;
  try {
    [realFolder, realTarget] = await Promise.all([realpath(folder), realpath(target)]);
  } catch (error) {
    throw new UsageError(`cannot read ${target}: ${errorCode(error)}`);
  }
  if (!isInside(realFolder, realTarget)) throw refused();
  return realTarget;
}
