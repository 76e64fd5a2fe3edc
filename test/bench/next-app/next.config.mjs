// The adapter benchmark's Next app (see ../adapters-server.ts): the same build serves the
// catch-all cellgate route and the native routes; cellgate loads from this repository's dist/.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** @type {import('next').NextConfig} */
export default {
  turbopack: { root },
  outputFileTracingRoot: root,
  serverExternalPackages: ['better-sqlite3', 'pg'],
  typescript: { ignoreBuildErrors: true },
};
