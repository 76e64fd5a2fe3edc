/**
 * Name conversions of governed entities (docs/decisions/B02.md): snake_case in documents and storage,
 * camelCase on the wire, plural kebab-case in resource paths.
 */

/** `invoice_number` → `invoiceNumber`, `tenant_id` → `tenantId`. */
export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, char: string) => char.toUpperCase());
}

/** `invoiceNumber` → `invoice_number`, `tenantId` → `tenant_id`. */
export function camelToSnake(name: string): string {
  return name.replace(/[A-Z]/g, (char) => `_${char.toLowerCase()}`);
}

/**
 * Irregular nouns a business entity name or a guidance goal plausibly uses; the rules of
 * {@link pluralize} cover the rest. The one table of the package (resource paths and generated
 * titles agree: `leaf` → `leaves` in both).
 */
export const IRREGULAR_PLURALS: Readonly<Record<string, string>> = {
  person: 'people',
  child: 'children',
  man: 'men',
  woman: 'women',
  mouse: 'mice',
  goose: 'geese',
  foot: 'feet',
  tooth: 'teeth',
  criterion: 'criteria',
  datum: 'data',
  medium: 'media',
  leaf: 'leaves',
  life: 'lives',
  knife: 'knives',
  wife: 'wives',
  half: 'halves',
  shelf: 'shelves',
  thief: 'thieves',
  wolf: 'wolves',
  // Regular by the rules below, listed so that guidance's plural folding finds their singulars.
  analysis: 'analyses',
  hero: 'heroes',
  potato: 'potatoes',
  tomato: 'tomatoes',
  echo: 'echoes',
};

/** Nouns whose plural is the word itself. */
export const UNCOUNTABLE_NOUNS: ReadonlySet<string> = new Set([
  'series',
  'species',
  'news',
  'equipment',
  'information',
  'metadata',
  'feedback',
  'sheep',
  'fish',
  'data',
  'money',
  'staff',
  'software',
]);

/** English plural of one lower-case word: `category` → `categories`, `address` → `addresses`, `person` → `people`. */
export function pluralize(word: string): string {
  const irregular = Object.hasOwn(IRREGULAR_PLURALS, word) ? IRREGULAR_PLURALS[word] : undefined;
  if (irregular !== undefined) return irregular;
  if (UNCOUNTABLE_NOUNS.has(word)) return word;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(analy|ba|diagno|parenthe|synop|the)sis$/.test(word)) return `${word.slice(0, -2)}es`;
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]o$/.test(word) && !/(photo|memo|logo|video|piano|studio|demo|info|promo)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** Splits a PascalCase or camelCase name into lower-case words: `ActivityEvent` → `['activity', 'event']`. */
export function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
}

/**
 * The default resource path name of an entity: plural kebab-case of its PascalCase name, the last
 * word pluralised.
 *
 * @example
 * resourcePathName('Invoice'); // 'invoices'
 * resourcePathName('ActivityEvent'); // 'activity-events'
 * resourcePathName('Category'); // 'categories'
 */
export function resourcePathName(entityName: string): string {
  const words = splitWords(entityName);
  const last = words.pop();
  if (last === undefined) return '';
  return [...words, pluralize(last)].join('-');
}
