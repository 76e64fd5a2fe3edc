/**
 * Page set for a list of entities (docs/contract-conventions.md#guidance-rules guidance rule 2, docs/decisions/A15.md): a dashboard first, then
 * list, detail and create pages per entity, and a navigation with one item per list page.
 */
import type { NavigationPageItem } from '../schema/navigation.ts';
import type { PageDefinition } from '../schema/page.ts';
import type { SuggestPagesResult } from './schemas.ts';
import { displayName, pluralDisplayName, pluralSlug } from './words.ts';

const dashboardPage: PageDefinition = { key: 'dashboard', type: 'dashboard', title: 'Dashboard', path: '/dashboard' };

const navItem = (page: PageDefinition, label: string): NavigationPageItem => ({ type: 'page', key: `nav_${page.key}`, pageKey: page.key, label });

/**
 * Pages and navigation for the given entity keys, in input order.
 *
 * @example
 * suggestPages(['stock_level']).pages[1]; // { key: 'stock_level_list', type: 'entity-list', title: 'Stock Levels', path: '/stock-levels', entity: 'stock_level' }
 */
export function suggestPages(entityKeys: readonly string[]): SuggestPagesResult {
  const pages: PageDefinition[] = [{ ...dashboardPage }];
  const items: NavigationPageItem[] = [navItem(dashboardPage, 'Dashboard')];
  for (const entity of entityKeys) {
    const name = displayName(entity);
    const plural = pluralDisplayName(entity);
    const base = `/${pluralSlug(entity)}`;
    const list: PageDefinition = { key: `${entity}_list`, type: 'entity-list', title: plural, path: base, entity };
    pages.push(
      list,
      { key: `${entity}_detail`, type: 'entity-detail', title: `${name} Detail`, path: `${base}/:id`, entity },
      { key: `${entity}_create`, type: 'entity-create', title: `New ${name}`, path: `${base}/new`, entity },
    );
    items.push(navItem(list, plural));
  }
  return { pages, navigation: { items } };
}
