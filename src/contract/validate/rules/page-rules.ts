/** Rules over pages: each page alone (also run by `validatePage`) and the page set of a manifest. */
import { PAGE_TYPES, type PageDefinition } from '../../schema/index.ts';
import { keyed, repeatedValues } from './helpers.ts';
import { rule } from './types.ts';

/** Page type → whether a page of that type must (true) or must not (false) name an entity. */
export const entityRequired = new Map<string, boolean>(PAGE_TYPES.map((entry) => [entry.type, entry.entityRequired]));

/**
 * Whether two pages name the same entity and type. Valid documents have none, so a short list is
 * compared pairwise without allocating; a long one is left to {@link pagesByEntityAndType}.
 */
function mayShareEntityAndType(pages: readonly PageDefinition[]): boolean {
  if (pages.length > 32) return true;
  for (let i = 1; i < pages.length; i++) {
    const { entity, type } = pages[i]!;
    if (entity === undefined) continue;
    for (let j = 0; j < i; j++) if (pages[j]!.entity === entity && pages[j]!.type === type) return true;
  }
  return false;
}

/** Page keys grouped by `<entity> <type>` for the one-page-per-type rule. */
function pagesByEntityAndType(pages: readonly PageDefinition[]): Map<string, PageDefinition[]> {
  const groups = new Map<string, PageDefinition[]>();
  for (const page of pages) {
    if (page.entity === undefined) continue;
    const id = `${page.entity}\u0000${page.type}`;
    const group = groups.get(id);
    if (group) group.push(page);
    else groups.set(id, [page]);
  }
  return groups;
}

/** True when two pages name the same entity and type (what `page.one-per-entity-type` reports). */
export function sharesEntityAndType(pages: readonly PageDefinition[]): boolean {
  if (!mayShareEntityAndType(pages)) return false;
  for (const group of pagesByEntityAndType(pages).values()) if (group.length > 1) return true;
  return false;
}

/** Page rules, in the order they run. */
export const pageRules = [
  rule({
    id: 'page.unique-keys',
    scope: 'manifest',
    description: 'Page keys are unique.',
    check: ({ manifest }, report) => {
      for (const key of repeatedValues((manifest.spec.pages ?? []).map((page) => page.key))) {
        report('spec.pages', `page keys must be unique (duplicate: "${key}")`);
      }
    },
  }),
  rule({
    id: 'page.unique-paths',
    scope: 'manifest',
    description: 'Page paths are unique.',
    check: ({ manifest }, report) => {
      for (const path of repeatedValues((manifest.spec.pages ?? []).map((page) => page.path))) {
        report('spec.pages', `Duplicate page path: "${path}"`);
      }
    },
  }),
  rule({
    id: 'page.entity-required',
    scope: 'page',
    description: 'entity-list, entity-detail, entity-create and entity-edit pages name an `entity`.',
    check: ({ page, at }, report) => {
      if (entityRequired.get(page.type) === true && page.entity === undefined) {
        report(`${at}.entity`, `Page type "${page.type}" requires an entity key`);
      }
    },
  }),
  rule({
    id: 'page.entity-forbidden',
    scope: 'page',
    description: 'dashboard and custom pages do not set `entity`.',
    check: ({ page, at }, report) => {
      if (entityRequired.get(page.type) === false && page.entity !== undefined) {
        report(`${at}.entity`, `Page type "${page.type}" must not set an entity key`);
      }
    },
  }),
  rule({
    id: 'page.entity-exists',
    scope: 'page',
    description: 'A page `entity` (and the entity of its dataContext and dataProviders) references an entity of the manifest.',
    check: ({ page, at, index }, report) => {
      if (index === undefined) return;
      if (page.entity !== undefined && !index.entities.has(page.entity)) {
        report(`${at}.entity`, `Page references unknown entity key: "${page.entity}"`);
      }
      const context = page.dataContext?.entityKey;
      if (context !== undefined && !index.entities.has(context)) {
        report(`${at}.dataContext.entityKey`, `Page references unknown entity key: "${context}"`);
      }
      for (const provider of page.dataProviders ?? []) {
        if (!index.entities.has(provider.entityKey)) {
          report(`${keyed(`${at}.dataProviders`, provider.key)}.entityKey`, `Page references unknown entity key: "${provider.entityKey}"`);
        }
      }
    },
  }),
  rule({
    id: 'page.one-per-entity-type',
    scope: 'manifest',
    description: 'At most one page per entity per page type.',
    check: ({ manifest }, report) => {
      const all = manifest.spec.pages ?? [];
      if (!mayShareEntityAndType(all)) return;
      for (const pages of pagesByEntityAndType(all).values()) {
        const [first] = pages;
        if (first === undefined || pages.length < 2) continue;
        const keys = pages.map((page) => page.key).join(', ');
        report('spec.pages', `Entity "${first.entity}" has ${pages.length} "${first.type}" pages (${keys}). Only one is allowed per entity.`);
      }
    },
  }),
];
