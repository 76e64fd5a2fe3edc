/**
 * Argument parsing shared by the subcommands, on `node:util`'s `parseArgs`: unknown options and
 * missing values become a {@link UsageError}, which the command turns into a one-line message and
 * exit code 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad command-line arguments: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses `args` with `options`; throws {@link UsageError} on anything `parseArgs` refuses. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Runs a command body, printing `help` for `--help` and mapping a {@link UsageError} to a one-line
 * message with exit code 2.
 */
export async function runCommand(name: string, help: string, args: string[], body: () => Promise<number>): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(help);
    return 0;
  }
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`cellgate ${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

/**
 * Reads and parses a YAML or JSON file named on the command line; a missing, unreadable or
 * unparsable file becomes a one-line {@link UsageError} (exit code 2).
 */
export async function readDocumentFile(path: string): Promise<unknown> {
  const [{ readFile }, { parse }] = await Promise.all([import('node:fs/promises'), import('yaml')]);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'read failed'}`);
  }
  try {
    return parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'parse error';
    throw new UsageError(`${path} is not valid YAML or JSON: ${reason}`);
  }
}
