/**
 * Stops a zod parse from collecting issues long after a result could list them. Validators list
 * at most {@link MAX_REPORTED_ISSUES} issues; a hostile document within the size bounds could
 * still yield tens of thousands (nineteen entities of a thousand empty fields each), and building
 * those costs seconds. So once one list or map of the document has produced that many issues, the
 * rest of the parse runs in zod's `abortEarly` mode: every later list or object stops at its first
 * problem.
 *
 * The first {@link MAX_REPORTED_ISSUES} issues are unchanged (zod produces issues in document
 * order, and the switch happens only after that many exist), so only the count of the rest
 * (`errorsOmitted`) becomes a lower bound. Other parses of the same schemas are not affected: the
 * switch needs the {@link issueBudget} parse option.
 */
import type { z } from 'zod';
import { MAX_REPORTED_ISSUES } from '../limits.ts';

/** The parse-context member that turns the budget on (zod hands unknown members down unchanged). */
const BUDGET = 'cellgateIssueBudget';

/** Parse options that turn the budget on, merged into the contract's parse options. */
export const issueBudget = { [BUDGET]: MAX_REPORTED_ISSUES } as const;

type Payload = { issues: unknown[] };
type Context = Record<string, unknown> | undefined;
type Parse = (payload: Payload, ctx: Context) => unknown;
// biome-ignore lint/suspicious/noExplicitAny: zod's internal definition is untyped and differs per schema kind
type Internals = { def: Record<string, any>; parse: Parse; run: Parse };

const installed = new WeakSet<object>();

/** Wraps one list or map so that finishing it with a full budget of issues switches the parse to abortEarly. */
function wrap(internals: Internals): void {
  const parse = internals.parse;
  const wrapped: Parse = (payload, ctx) => {
    const result = parse(payload, ctx);
    const budget = ctx?.[BUDGET];
    if (typeof budget === 'number' && !(result instanceof Promise) && payload.issues.length >= budget) ctx!.abortEarly = true;
    return result;
  };
  // A schema without checks runs its parse directly (zod copies the function once); one with
  // checks looks `parse` up on every run.
  if (internals.run === parse) internals.run = wrapped;
  internals.parse = wrapped;
}

/**
 * Installs the budget on every list and map reachable from `schema` (once per schema object,
 * recursive schemas included).
 */
export function installIssueBudget(schema: z.ZodType): void {
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const current = pending.pop() as { _zod: Internals } | undefined;
    if (!current?._zod || installed.has(current)) continue;
    installed.add(current);
    const def = current._zod.def;
    if (def.type === 'array' || def.type === 'record') wrap(current._zod);
    if (def.type === 'object') pending.push(...Object.values(def.shape as object), def.catchall);
    pending.push(def.element, def.keyType, def.valueType, def.innerType, def.in, def.out, ...(Array.isArray(def.options) ? def.options : []));
  }
}
