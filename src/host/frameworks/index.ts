/**
 * `cellgate/host/frameworks`: the reference host mounted in Express, Fastify, Hono or Next.js,
 * by name. Each framework host loads only when asked for, so no web framework needs to be
 * installed until a host on that framework starts. Kept apart from `cellgate/host` so a bundler
 * compiling the reference app (the Next route) never follows these framework imports.
 *
 * @example
 * import { runHost } from 'cellgate/host';
 * import { frameworkMount } from 'cellgate/host/frameworks';
 * process.exitCode = await runHost('hono host', await frameworkMount('hono'));
 */
import type { MountHandler } from 'cellgate/host';

/** The frameworks a host can mount the reference app in, besides plain `node:http`. */
export const FRAMEWORK_HOSTS = ['express', 'fastify', 'hono', 'next'] as const;

/** One of {@link FRAMEWORK_HOSTS}. */
export type FrameworkHost = (typeof FRAMEWORK_HOSTS)[number];

const loaders: Record<FrameworkHost, () => Promise<MountHandler>> = {
  express: () => import('./express.ts').then((m) => m.mountExpress),
  fastify: () => import('./fastify.ts').then((m) => m.mountFastify),
  hono: () => import('./hono.ts').then((m) => m.mountHono),
  next: () => import('./next.ts').then((m) => m.mountNext),
};

/**
 * Loads the mount function of one framework host (the framework package must be installed).
 *
 * @example
 * process.exitCode = await runHost('hono host', await frameworkMount('hono'));
 */
export function frameworkMount(framework: FrameworkHost): Promise<MountHandler> {
  return loaders[framework]();
}

export { NEXT_DIR, ROUTE_HANDLERS, buildNextApp, findNextDir, mountNext } from './next.ts';
