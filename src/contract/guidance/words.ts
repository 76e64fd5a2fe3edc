/**
 * English word handling for guidance: real plurals for generated titles and paths (docs/decisions/A15.md)
 * and plural folding for whole-word goal matching (A14). Deliberately small: regular rules plus
 * the irregular nouns business entities actually use. Plurals come from the entity-document naming
 * module, so generated titles and governed resource paths pluralise alike.
 */
import { IRREGULAR_PLURALS, pluralize, UNCOUNTABLE_NOUNS } from '../../entity-document/naming.ts';

export { pluralize };

const SINGULAR_OF: Record<string, string> = Object.fromEntries(Object.entries(IRREGULAR_PLURALS).map(([one, many]) => [many, one]));

/**
 * Folds a lower-case word to a comparison key shared by its singular and plural
 * (`customers`/`customer` → `customer`, `categories` → `category`, `warehouses`/`warehouse` →
 * `warehous`). Not always a real word; both sides of a comparison are folded.
 */
export function foldWord(word: string): string {
  const irregular = Object.hasOwn(SINGULAR_OF, word) ? SINGULAR_OF[word] : undefined;
  if (irregular) return irregular;
  if (UNCOUNTABLE_NOUNS.has(word) || word.length <= 3) return word;
  if (/[^aeiou]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (/(s|x|z|ch|sh)e$/.test(word)) return word.slice(0, -1);
  if (/[^su]s$/.test(word) && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

/**
 * The whole words of a text, lower-cased and folded with {@link foldWord}. Hyphenated compounds also count
 * joined (`e-commerce` → `ecommerce`) so a keyword written either way matches.
 */
export function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const token of text.toLowerCase().match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []) {
    for (const part of token.split('-')) words.add(foldWord(part));
    if (token.includes('-')) words.add(foldWord(token.replaceAll('-', '')));
  }
  return words;
}

/** `stock_level` → `["stock", "level"]`. */
function partsOf(key: string): string[] {
  return key.split('_').filter((part) => part !== '');
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** Display name of an entity key: `stock_level` → `Stock Level`. */
export function displayName(key: string): string {
  return partsOf(key).map(capitalize).join(' ');
}

/** Plural parts of an entity key: only the last word is pluralised (`stock_level` → stock, levels). */
function pluralParts(key: string): string[] {
  const parts = partsOf(key);
  const last = parts.pop() ?? key;
  return [...parts, pluralize(last)];
}

/** Plural display name: `stock_level` → `Stock Levels`, `category` → `Categories`. */
export function pluralDisplayName(key: string): string {
  return pluralParts(key).map(capitalize).join(' ');
}

/** Plural URL segment: `stock_level` → `stock-levels`. */
export function pluralSlug(key: string): string {
  return pluralParts(key).join('-');
}
