// cellgate stays external: Node loads the published package (here: this repository's dist/, by
// its own name) at run time instead of Turbopack bundling it. Do the same in your app:
// `serverExternalPackages: ['cellgate']`.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** @type {import('next').NextConfig} */
export default {
  turbopack: { root },
  outputFileTracingRoot: root,
  serverExternalPackages: ['better-sqlite3', 'pg'],
  // No `X-Powered-By: Next.js`: it tells an attacker the framework.
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: true },
};
