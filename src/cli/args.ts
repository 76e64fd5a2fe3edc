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
    // parseArgs explains some refusals over three lines (a value starting with a dash): one line here.
    throw new UsageError((error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' '));
  }
}

/** The bounds of a numeric flag: inclusive range, and whether only whole numbers are allowed. */
export interface NumberFlagBounds {
  min: number;
  max: number;
  integer?: boolean;
  /** What the number means, for the message ("days; 0: off"). */
  unit: string;
}

/**
 * Reads a numeric flag (or the variable it defaults to; `label` names the one given, `--port`):
 * `undefined` when absent, else a finite number within `bounds`. Anything else (`abc`, `NaN`,
 * `1e9` past the bound, a negative) is a one-line {@link UsageError} naming the flag and the
 * allowed range, so no out-of-range value reaches date arithmetic.
 */
export function numberFlag(label: string, raw: string | undefined, bounds: NumberFlagBounds): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const value = text === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value) || value < bounds.min || value > bounds.max || (bounds.integer === true && !Number.isInteger(value))) {
    const kind = bounds.integer === true ? 'a whole number' : 'a number';
    throw new UsageError(`${label} must be ${kind} from ${bounds.min} to ${bounds.max} (${bounds.unit}), got "${raw.slice(0, 40)}"`);
  }
  return value;
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
  // Loaded here: document-file imports this module (UsageError), and `--help` stays instant.
  const [{ readDocumentText }, { parse }] = await Promise.all([import('./document-file.ts'), import('yaml')]);
  const text = await readDocumentText(path);
  try {
    return parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'parse error';
    throw new UsageError(`${path} is not valid YAML or JSON: ${reason}`);
  }
}
