// cellgate stays external: Node loads the published package (here: this repository's dist/, by
// its own name) at run time instead of Turbopack bundling it. Do the same in your app:
// `serverExternalPackages: ['cellgate']`.
import { realpathSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Turbopack compiles nothing outside its root, Next included. When `node_modules` is a link to a
 * folder elsewhere (a git worktree sharing one install, a pnpm store), the root must be the
 * closest folder holding both the repository and that install.
 */
function commonRoot(a, b) {
  let root = a;
  while (relative(root, b).startsWith('..') && dirname(root) !== root) root = dirname(root);
  return root.endsWith(sep) ? root : root + sep;
}

const root = commonRoot(realpathSync(repository), realpathSync(`${repository}node_modules`));

/** @type {import('next').NextConfig} */
export default {
  turbopack: { root },
  outputFileTracingRoot: root,
  serverExternalPackages: ['better-sqlite3', 'pg'],
  // No `X-Powered-By: Next.js`: it tells an attacker the framework.
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: true },
};
