/**
 * Where a validation problem sits in the YAML/JSON text it came from. Problems name their place
 * as a path: structural ones with dots and numeric indexes (`spec.pages.0.path`, `root`), semantic
 * ones with bracketed keys (`spec.entities[customer].fields[email]`). The path is walked through
 * the parsed YAML document (JSON is YAML) to the node's offset; an entity written as
 * `{ $ref: ./file.yaml }` in a manifest continues in the referenced file. A step that cannot be
 * followed stops at the closest enclosing node, so every problem gets a line and column.
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { UsageError } from '../args.ts';
import { confinedReference, readDocumentText } from '../document-file.ts';
import { MAX_VALIDATE_PATH_LENGTH } from '../../limits.ts';

/** A parsed source file: its value, its YAML tree and how to turn offsets into lines. */
export interface SourceFile {
  path: string;
  value: unknown;
  document: Document.Parsed;
  lines: LineCounter;
}

/** A position in a file (1-based line and column). */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

/** Reads and parses a YAML or JSON file; unreadable or unparsable files are a {@link UsageError}. */
export async function readSource(path: string): Promise<SourceFile> {
  const text = await readDocumentText(path);
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const [first] = document.errors;
  if (first) {
    const at = lines.linePos(first.pos[0]);
    throw new UsageError(`${path}:${at.line}:${at.col} is not valid YAML or JSON: ${first.message.split('\n')[0]}`);
  }
  return { path, value: document.toJS() as unknown, document, lines };
}

/** `spec.entities[customer].fields.0` → `['spec', 'entities', {key: 'customer'}, 'fields', '0']`. */
function steps(path: string): Array<string | { key: string }> {
  const out: Array<string | { key: string }> = [];
  for (const match of path.slice(0, MAX_VALIDATE_PATH_LENGTH).matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    out.push(match[1] !== undefined ? match[1] : { key: match[2]! });
  }
  return out;
}

const scalarOf = (node: unknown): unknown => (isScalar(node) ? node.value : undefined);

/** Opens a `{ $ref }` entity of a manifest, relative to the file that names it. */
export type RefOpener = (from: SourceFile, ref: string) => Promise<SourceFile | undefined>;

/** A {@link RefOpener} that reads each referenced file once, only inside the referring file's folder. */
export function refOpener(): RefOpener {
  const cache = new Map<string, Promise<SourceFile | undefined>>();
  return (from, ref) => {
    const key = `${from.path}\u0000${ref}`;
    if (!cache.has(key))
      cache.set(
        key,
        confinedReference(from.path, ref)
          .then(readSource)
          .catch(() => undefined),
      );
    return cache.get(key)!;
  };
}

/** The position of `path` in `source` (following `$ref` entities), or of its closest enclosing node. */
export async function locate(source: SourceFile, path: string, openRef: RefOpener): Promise<SourcePosition> {
  let file = source;
  let node: unknown = file.document.contents;
  let found: { file: SourceFile; node: unknown } = { file, node };
  const walk = path === 'root' ? [] : steps(path);
  for (const step of walk) {
    // An entity written as { $ref } continues in its own file.
    if (isMap(node) && typeof scalarOf(node.get('$ref', true)) === 'string') {
      const opened = await openRef(file, scalarOf(node.get('$ref', true)) as string);
      if (!opened) break;
      file = opened;
      node = opened.document.contents;
    }
    let next: unknown;
    if (typeof step === 'string') {
      if (isMap(node)) next = node.get(step, true) ?? node.items.find((pair) => scalarOf(pair.key) === step)?.key;
      else if (isSeq(node) && /^\d+$/.test(step)) next = node.items[Number(step)];
    } else if (isMap(node)) {
      next = node.get(step.key, true);
    } else if (isSeq(node)) {
      for (const item of node.items) {
        let candidate: unknown = item;
        let candidateFile = file;
        if (isMap(item) && typeof scalarOf(item.get('$ref', true)) === 'string') {
          const opened = await openRef(file, scalarOf(item.get('$ref', true)) as string);
          if (opened) [candidate, candidateFile] = [opened.document.contents, opened];
        }
        if (isMap(candidate) && String(scalarOf(candidate.get('key', true))) === step.key) {
          [next, file] = [candidate, candidateFile];
          break;
        }
      }
    }
    if (next === undefined || next === null) break;
    node = next;
    found = { file, node };
  }
  const range = (found.node as Node | null | undefined)?.range;
  const at = found.file.lines.linePos(range ? range[0] : 0);
  return { file: found.file.path, line: at.line, column: at.col };
}
