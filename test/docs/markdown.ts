/**
 * The fenced code blocks of the README and of every guide under `docs/`, with the attributes of
 * their info string (```` ```ts file=server.ts run ````, ```` ```ts no-check="reason" ````), so the
 * docs tests check every sample the same way.
 *
 * Attributes:
 * - `file=<path>`: the block is that file of the reader's app (other blocks import it);
 * - `run`: a complete program, run from an empty app (README servers answer requests; a guide's
 *   program throws when what it shows does not hold);
 * - `no-check="<reason>"`: not type-checked, for the stated reason (required, non-empty).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root } from '../packaging/pack.ts';

/** One fenced block of a Markdown file. */
export interface CodeBlock {
  /** Path of the Markdown file, relative to the repository root. */
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** Language: the first word of the info string. */
  lang: string;
  /** The other words of the info string: `key=value`, `key="value with spaces"` or a bare `key` (`''`). */
  attrs: Record<string, string>;
  /** The block's text, ending with a newline. */
  code: string;
}

/** The Markdown files whose samples are tested: the README, then `docs/**` in path order. */
export function markdownFiles(): string[] {
  const docs: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) docs.push(relative(root, path));
    }
  };
  walk(join(root, 'docs'));
  return ['README.md', ...docs];
}

/** The fenced blocks of one Markdown file. */
export function codeBlocks(doc: string): CodeBlock[] {
  const text = readFileSync(join(root, doc), 'utf8');
  return [...text.matchAll(/^```(\S*)([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    doc,
    line: text.slice(0, match.index).split('\n').length,
    lang: match[1]!,
    attrs: Object.fromEntries([...match[2]!.matchAll(/([\w-]+)(?:=("[^"]*"|\S+))?/g)].map((attr) => [attr[1]!, (attr[2] ?? '').replace(/^"|"$/g, '')])),
    code: match[3]!,
  }));
}

/** Every `ts` block of the README and the guides. */
export function tsBlocks(): CodeBlock[] {
  return markdownFiles()
    .flatMap(codeBlocks)
    .filter((block) => block.lang === 'ts');
}

/** A block's place, for messages and generated file names: `docs/events.md:42`. */
export const where = (block: CodeBlock) => `${block.doc}:${block.line}`;
