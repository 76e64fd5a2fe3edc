/**
 * Options checked by one strict zod schema at construction time: the first problem becomes a
 * {@link ConfigurationError} naming its dot path (`resources.0.tier`), and a misspelt option
 * name gets the closest known name as a suggestion, so `rateLimt` fails at start-up instead of
 * silently turning rate limiting off.
 */
import { z } from 'zod';
import { ConfigurationError } from '../errors.ts';
import { clipErrorText } from '../error-text.ts';
import { OPTION_SUGGESTION_DISTANCE } from '../limits.ts';

/**
 * The known name closest to `name` by edit distance (letter case ignored), or `undefined` when
 * none is within {@link OPTION_SUGGESTION_DISTANCE}. Names whose lengths differ by more than that are
 * skipped before any work, so a long unknown name costs nothing.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = OPTION_SUGGESTION_DISTANCE + 1;
  const lower = name.toLowerCase();
  for (const candidate of known) {
    if (Math.abs(candidate.length - name.length) >= bestDistance) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance over two short strings (one row kept). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The member names a schema at `path` knows (for the suggestion), unwrapping optional, union and pipe. */
function knownNames(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const segment of path) {
    current = current === undefined ? undefined : memberSchema(current, segment);
  }
  return current === undefined ? [] : objectsIn(current).flatMap((object) => Object.keys(object.shape));
}

/** The object schemas a schema may stand for (an option is often `object | function | false`). */
function objectsIn(schema: z.ZodType): z.ZodObject[] {
  if (schema instanceof z.ZodObject) return [schema];
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return objectsIn(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).flatMap(objectsIn);
  if (schema instanceof z.ZodPipe) return objectsIn(schema.in as z.ZodType);
  return [];
}

function memberSchema(schema: z.ZodType, segment: PropertyKey): z.ZodType | undefined {
  for (const object of objectsIn(schema)) {
    const member = object.shape[String(segment)] as z.ZodType | undefined;
    if (member !== undefined) return member;
  }
  if (schema instanceof z.ZodOptional) return memberSchema(schema.unwrap() as z.ZodType, segment);
  if (schema instanceof z.ZodArray) return schema.element as z.ZodType;
  if (schema instanceof z.ZodRecord) return schema.valueType as z.ZodType;
  if (schema instanceof z.ZodUnion) {
    for (const option of schema.options as z.ZodType[]) {
      const found = memberSchema(option, segment);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

const joinPath = (path: readonly PropertyKey[]): string => path.map(String).join('.');

/** How the expected types read in a message. */
const TYPE_NAMES: Record<string, string> = { object: 'an object', record: 'an object', array: 'a list', undefined: 'absent' };

/** What an issue says, in the project's wording (zod's defaults are not ours to keep stable). */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `must be ${TYPE_NAMES[issue.expected] ?? `a ${issue.expected}`}.`;
  if (issue.code === 'invalid_union') {
    // Each branch's own first complaint ("must be a function", "must be an object"), joined.
    const choices = issue.errors.map((branch) => (branch[0] === undefined ? 'valid' : issueMessage(branch[0]).replace(/^must be |\.$/g, '')));
    return `must be ${[...new Set(choices)].join(' or ')}.`;
  }
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}.`;
  return issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
}

/**
 * The issue to report for a value no branch of a union accepts: the branch that got furthest into
 * the value (`resources.0.tier` inside the wrapper branch) rather than "must be A or B", unless
 * every branch failed at the value itself (`auth: 5` → "must be a function or an object").
 */
function closestIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  let current = issue;
  while (current.code === 'invalid_union') {
    const inner = current.errors
      .map((branch) => branch[0])
      .filter(
        (candidate) => candidate !== undefined && (candidate.path.length > 0 || candidate.code === 'unrecognized_keys' || candidate.code === 'invalid_union'),
      )
      .sort((a, b) => (b?.path.length ?? 0) - (a?.path.length ?? 0))[0];
    if (inner === undefined) break;
    current = { ...inner, path: [...current.path, ...inner.path] } as z.core.$ZodIssue;
  }
  return current;
}

/**
 * Parses `options` with a strict `schema` and returns them typed; the first issue throws a
 * {@link ConfigurationError}: an unknown member as `<path>.<name>: is not an option; did you mean
 * "<closest>"?`, any other as `<path>: <what it must be>`. `prefix` names the options at the
 * root (empty for a factory's options object).
 */
export function parseOptions<T>(schema: z.ZodType<T>, options: unknown, prefix = ''): T {
  const result = schema.safeParse(options);
  if (result.success) return options as T;
  const issue = closestIssue(result.error.issues[0] as z.core.$ZodIssue);
  const path = [...(prefix === '' ? [] : [prefix]), ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    const name = issue.keys[0] ?? '';
    const known = knownNames(schema, issue.path);
    const suggestion = closestName(name, known);
    const hint = suggestion === undefined ? `known options here: ${known.join(', ')}` : `did you mean "${suggestion}"?`;
    throw new ConfigurationError(clipErrorText(joinPath([...path, name])), `is not an option; ${hint}`);
  }
  throw new ConfigurationError(joinPath(path) || 'options', issueMessage(issue));
}
