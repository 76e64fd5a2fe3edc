/** `spec.navigation`: the sidebar tree of page items and groups (docs/decisions/A06.md). */
import { z } from 'zod';
import { list, nonEmptyString } from './common.ts';

/** A navigation item pointing at a page. */
export const NavigationPageItemSchema = z
  .object({
    type: z.literal('page'),
    key: nonEmptyString().describe('Unique key across the whole navigation tree.'),
    pageKey: nonEmptyString().describe('Key of the page this item opens.'),
    label: z.string().optional().describe('Label; defaults to the page title.'),
    icon: z.string().optional(),
    order: z.number().optional(),
  })
  .meta({ id: 'NavigationPageItem', description: 'A sidebar entry that opens a page.' });

/** A navigation group holding further items (recursive). */
export const NavigationGroupItemSchema = z
  .object({
    type: z.literal('group'),
    key: nonEmptyString().describe('Unique key across the whole navigation tree.'),
    label: nonEmptyString().describe('Group label.'),
    icon: z.string().optional(),
    order: z.number().optional(),
    get children(): z.ZodArray<typeof NavigationItemSchema> {
      return list(NavigationItemSchema);
    },
  })
  .meta({ id: 'NavigationGroupItem', description: 'A sidebar group with child items.' });

/** A page item or a group, told apart by `type`. */
export const NavigationItemSchema: z.ZodDiscriminatedUnion<[typeof NavigationPageItemSchema, typeof NavigationGroupItemSchema]> = z
  .discriminatedUnion('type', [NavigationPageItemSchema, NavigationGroupItemSchema])
  .meta({ id: 'NavigationItem' });

/** `spec.navigation` (strict); `items` may be empty. */
export const NavigationDefinitionSchema = z
  .strictObject({
    items: list(NavigationItemSchema).describe('Top-level items; may be empty.'),
  })
  .meta({ id: 'NavigationDefinition', description: 'Sidebar structure made of page items and groups.' });

/** A navigation page item. */
export type NavigationPageItem = z.infer<typeof NavigationPageItemSchema>;
/** A navigation group. */
export type NavigationGroupItem = z.infer<typeof NavigationGroupItemSchema>;
/** A navigation item (page or group). */
export type NavigationItem = z.infer<typeof NavigationItemSchema>;
/** `spec.navigation`. */
export type NavigationDefinition = z.infer<typeof NavigationDefinitionSchema>;
