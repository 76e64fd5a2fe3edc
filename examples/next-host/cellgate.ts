/**
 * The handler the Next host serves: the reference app (contract API, MCP, governed demo resources)
 * built once per server process from the same environment as every other host. A test may hand
 * in its own handler through {@link HANDLER_OVERRIDE} before the first request.
 */
import type { FetchHandler } from 'cellgate';
import { createReferenceApp, type ReferenceApp } from '../reference-host/app.ts';
import { loadConfig } from '../reference-host/config.ts';

/** Global slot a test (the adapter conformance runner) may fill with the handler to serve. */
export const HANDLER_OVERRIDE = Symbol.for('cellgate.next-host.handler');

const state = globalThis as typeof globalThis & { [HANDLER_OVERRIDE]?: FetchHandler; __cellgateApp?: Promise<ReferenceApp> };

/** The reference app of this process (created on first use). */
export function referenceApp(): Promise<ReferenceApp> {
  return (state.__cellgateApp ??= createReferenceApp(loadConfig(process.env)));
}

/** The handler to serve: the override when set, else the reference app's. */
export async function handler(): Promise<FetchHandler> {
  return state[HANDLER_OVERRIDE] ?? (await referenceApp()).handler;
}
