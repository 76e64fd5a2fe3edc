/** `spec.appShell`: layout, regions, branding and shell navigation of the host application. */
import { z } from 'zod';
import { list, nonEmptyString } from './common.ts';

const positive = () => z.number().positive();

/** A shell navigation link; `children` nest links (recursive). */
export const AppShellNavItemSchema = z
  .object({
    key: nonEmptyString(),
    label: nonEmptyString(),
    icon: z.string().optional(),
    href: z.string().optional(),
    capabilityKey: z.string().optional(),
    external: z.boolean().optional(),
    get children(): z.ZodOptional<z.ZodArray<typeof AppShellNavItemSchema>> {
      return list(AppShellNavItemSchema).optional();
    },
  })
  .meta({ id: 'AppShellNavItem', description: 'A link of the app shell navigation; children nest links.' });

/** One layout region of the shell. */
export const AppShellRegionSchema = z
  .object({
    key: z.enum(['topbar', 'sidebar', 'main', 'aside', 'footer', 'commandBar', 'notifications']),
    enabled: z.boolean(),
    collapsible: z.boolean().optional(),
    defaultCollapsed: z.boolean().optional(),
    resizable: z.boolean().optional(),
    sticky: z.boolean().optional(),
    width: positive().optional(),
    minWidth: positive().optional(),
    maxWidth: positive().optional(),
    order: z.int().optional(),
  })
  .meta({ id: 'AppShellRegion', description: 'A layout region; exactly one enabled `main` region is required.' });

/** `spec.appShell` (strict). */
export const AppShellDefinitionSchema = z
  .strictObject({
    key: nonEmptyString().describe('Shell key.'),
    name: nonEmptyString().describe('Shell name.'),
    layout: z
      .strictObject({
        mode: z.enum(['sidebar-content', 'topbar-content', 'sidebar-topbar-content', 'minimal']),
        maxContentWidth: z.union([positive(), z.literal('full')]).optional(),
        contentPadding: z.enum(['none', 'sm', 'md', 'lg']).optional(),
      })
      .describe('Layout mode and content sizing.'),
    branding: z
      .object({ logo: z.string().optional(), productName: z.string().optional(), showProductName: z.boolean().optional() })
      .optional()
      .describe('Logo and product name.'),
    regions: list(AppShellRegionSchema).min(1).describe('Layout regions; keys unique, exactly one enabled `main`.'),
    navigation: z
      .object({
        primary: list(AppShellNavItemSchema).optional(),
        secondary: list(AppShellNavItemSchema).optional(),
        footer: list(AppShellNavItemSchema).optional(),
      })
      .optional()
      .describe('Shell-level links (primary, secondary, footer).'),
    capabilities: z
      .object({
        globalSearch: z.boolean().optional(),
        workspaceSwitcher: z.boolean().optional(),
        tenantSwitcher: z.boolean().optional(),
        commandPalette: z.boolean().optional(),
        notifications: z.boolean().optional(),
        breadcrumbs: z.boolean().optional(),
        userMenu: z.boolean().optional(),
        themeSwitcher: z.boolean().optional(),
      })
      .optional()
      .describe('Shell features switched on or off.'),
    responsive: z
      .object({
        mobileBreakpoint: positive().optional(),
        collapseSidebarBelow: positive().optional(),
        collapseAsideBelow: positive().optional(),
        hideLabelsBelow: positive().optional(),
        overlaySidebarOnMobile: z.boolean().optional(),
      })
      .optional()
      .describe('Breakpoints of the responsive behaviour.'),
    outlet: z.strictObject({ type: z.literal('page'), region: z.literal('main') }).describe('Where pages render: `{ type: "page", region: "main" }`.'),
  })
  .meta({ id: 'AppShellDefinition', description: 'App shell customization: layout, regions, branding, shell navigation.' });

/** Inferred type of `spec.appShell`. */
export type AppShellDefinition = z.infer<typeof AppShellDefinitionSchema>;
