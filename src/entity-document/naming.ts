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

// Irregular nouns a business entity name plausibly ends with; the rules below cover the rest.
const IRREGULAR: Record<string, string> = {
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
};
// Nouns whose plural is the word itself.
const UNCOUNTABLE = new Set(['series', 'species', 'news', 'equipment', 'information', 'metadata', 'feedback', 'sheep', 'fish', 'data']);

/** English plural of one lower-case word: `category` → `categories`, `address` → `addresses`, `person` → `people`. */
export function pluralize(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular !== undefined) return irregular;
  if (UNCOUNTABLE.has(word)) return word;
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
