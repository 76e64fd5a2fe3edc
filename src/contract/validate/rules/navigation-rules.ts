/** Rules over `spec.navigation`: references and uniqueness across the whole tree. */
import type { NavigationItem, NavigationPageItem } from '../../schema/index.ts';
import { repeatedValues } from './helpers.ts';
import { rule } from './types.ts';

/** Every item of the tree, depth first, without recursion limits of the call stack. */
export function flatten(items: readonly NavigationItem[]): NavigationItem[] {
  const out: NavigationItem[] = [];
  const stack = [...items].reverse();
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    out.push(item);
    if (item.type === 'group') for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i] as NavigationItem);
  }
  return out;
}

/** The page items of the tree, depth first. */
export const pageItems = (items: readonly NavigationItem[]): NavigationPageItem[] =>
  flatten(items).filter((item): item is NavigationPageItem => item.type === 'page');

/** Navigation rules, in the order they run. */
export const navigationRules = [
  rule({
    id: 'navigation.page-exists',
    scope: 'manifest',
    description: 'Navigation page items reference defined page keys.',
    check: ({ manifest, index }, report) => {
      for (const item of pageItems(manifest.spec.navigation?.items ?? [])) {
        if (!index.pageKeys.has(item.pageKey)) report('spec.navigation', `Navigation references unknown page key: "${item.pageKey}"`);
      }
    },
  }),
  rule({
    id: 'navigation.unique-keys',
    scope: 'manifest',
    description: 'Navigation item keys are unique across the whole navigation tree.',
    check: ({ manifest }, report) => {
      for (const key of repeatedValues(flatten(manifest.spec.navigation?.items ?? []).map((item) => item.key))) {
        report('spec.navigation', `navigation item key "${key}" must be unique across the full navigation tree`);
      }
    },
  }),
  rule({
    id: 'navigation.page-once',
    scope: 'manifest',
    description: 'A page is referenced by at most one navigation item.',
    check: ({ manifest }, report) => {
      for (const key of repeatedValues(pageItems(manifest.spec.navigation?.items ?? []).map((item) => item.pageKey))) {
        report('spec.navigation', `pageKey "${key}" is referenced multiple times in navigation`);
      }
    },
  }),
];
