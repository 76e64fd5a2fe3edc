/**
 * A fast yes-or-"ask zod" check compiled from a zod schema's own definition, for the hot path of
 * validation: most documents sent to a validator are valid, and proving that needs no issue
 * objects, no paths, no output copy. `true` means zod would accept the value (the validator then
 * skips the zod parse); `false` means "not proven": zod runs as before and produces every message,
 * so error lists stay exactly zod's.
 *
 * zod stays the single source of the shape: `quick-check-shape.ts` reads what the check models
 * from the schema definitions at first use, and anything it does not model (a refinement, a
 * transform, an unknown check) is "not proven", which costs speed, never correctness. Only plain
 * JSON data is proven (plain objects, arrays, strings, finite numbers, booleans, null).
 *
 * Two back ends give the same answers: generated JavaScript (`quick-check-source.ts`), used where
 * zod's own probe says the runtime allows it, and closures (`quick-check-closures.ts`) elsewhere,
 * e.g. on Cloudflare Workers or under `z.config({ jitless: true })`.
 */
import type { z } from 'zod';
import { util } from 'zod/v4/core';
import { closureCheck } from './quick-check-closures.ts';
import { readShape, type ShapeOptions } from './quick-check-shape.ts';
import { sourceCheck } from './quick-check-source.ts';

/**
 * A compiled check. `level` is the nesting level of `value` in its document (1 when it is the
 * document), read only by checks compiled with `maxDepth`.
 */
export type QuickCheck = (value: unknown, level?: number) => boolean;

/** Options of {@link compileQuickCheck}. */
export interface QuickCheckOptions extends ShapeOptions {
  /** Which back end builds the check: `auto` takes generated code where the runtime allows it. @default 'auto' */
  backend?: 'auto' | 'source' | 'closures';
  /**
   * Also prove that the value nests no deeper than this many levels (objects and arrays, the value
   * itself at `level`), including members the schema does not describe, so that a caller may skip
   * its own depth check for a proven value. Only generated code proves it: the closure back end
   * then proves nothing, and the caller's own depth check runs.
   */
  maxDepth?: number;
}

/**
 * Compiles a zod schema into a {@link QuickCheck}. The value must already be within the document
 * bounds (the check recurses once per level of nesting).
 *
 * @example
 * const quick = compileQuickCheck(CellManifestSchema);
 * if (!quick(doc)) CellManifestSchema.safeParse(doc); // zod gives the messages
 */
export function compileQuickCheck(schema: z.ZodType, options: QuickCheckOptions = {}): QuickCheck {
  const { backend = 'auto', maxDepth } = options;
  const shape = readShape(schema, options);
  const generated = backend === 'source' || (backend === 'auto' && util.allowsEval.value);
  if (generated) return sourceCheck(shape, maxDepth);
  return maxDepth === undefined ? closureCheck(shape) : () => false;
}
