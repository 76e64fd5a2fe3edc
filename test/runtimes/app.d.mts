// Types of what `runtimes.test.ts` reads from `app.mjs` (plain JavaScript so the runtimes run it as is).

/** The token secret of the smoke app, its tenant and its workspace. */
export declare const SMOKE: { readonly secret: string; readonly tenantId: string; readonly workspaceId: string };
