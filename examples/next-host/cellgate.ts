/**
 * The handler the Next route serves when it runs without a host process (`next start` in this
 * folder): the reference app (contract API, MCP, governed demo resources), built once per server
 * process from the same environment as every other host.
 */
import type { FetchHandler } from 'cellgate';
import { createReferenceApp, loadConfig, type ReferenceApp } from 'cellgate/host';

const state = globalThis as typeof globalThis & { __cellgateApp?: Promise<ReferenceApp> };

/** The reference app of this process (created on first use). */
export function referenceApp(): Promise<ReferenceApp> {
  return (state.__cellgateApp ??= createReferenceApp(loadConfig(process.env)));
}

/** The handler to serve: the reference app's. */
export async function handler(): Promise<FetchHandler> {
  return (await referenceApp()).handler;
}
