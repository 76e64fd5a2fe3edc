/**
 * The layers of the repository, read from the sources: the shipped code under `src/` and
 * `adapters/` never imports `examples/` (that would compile the examples into `dist/`), and each
 * example imports only the package's public entry points (plus its own folder and other packages),
 * so it reads exactly like an app that installed cellgate.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageEntries } from '../../entries.config.ts';

const root = resolve(import.meta.dirname, '../..');

/** Every `.ts`/`.mts`/`.js`/`.mjs` file under `dir`, skipping build output and installs. */
function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sources(path));
    else if (/\.(m?ts|m?js|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/** Static, re-export and dynamic import specifiers of a source file (comments removed first). */
function importSpecifiers(code: string): string[] {
  const stripped = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const patterns = [
    /(?:^|[;\n}])\s*(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?["']([^"']+)["']/g,
    /\bimport\s*\(\s*["'`]([^"'`]+)["'`]/g,
  ];
  return [...new Set(patterns.flatMap((pattern) => [...stripped.matchAll(pattern)].map((match) => match[1]!)))];
}

/** The folder (relative to the repository) a relative specifier of `file` points into. */
function target(file: string, specifier: string): string {
  return relative(root, resolve(root, dirname(file), specifier));
}

const publicSpecifiers = new Set(packageEntries.map((entry) => entry.specifier));

describe('layers', () => {
  it('finds imports of every kind (the checks below would pass vacuously otherwise)', () => {
    const code = `import a from './a.ts';\nimport type { B } from "../b.ts";\nexport * from './c.ts';\nconst d = await import('../../examples/d.ts');\n// import e from './e.ts';`;
    expect(importSpecifiers(code)).toEqual(['./a.ts', '../b.ts', './c.ts', '../../examples/d.ts']);
  });

  it.each(['src', 'adapters'])('no file under %s/ imports from examples/', (dir) => {
    const offenders = sources(dir).flatMap((file) =>
      importSpecifiers(readFileSync(join(root, file), 'utf8'))
        .filter((specifier) => specifier.startsWith('.') && target(file, specifier).split(sep)[0] === 'examples')
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it('each example imports only public entry points, packages and its own folder', () => {
    const files = sources('examples');
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap((file) => {
      const folder = file.split(sep).slice(0, 2).join(sep); // examples/<host>
      return importSpecifiers(readFileSync(join(root, file), 'utf8'))
        .filter((specifier) =>
          specifier.startsWith('.')
            ? !(target(file, specifier) + sep).startsWith(folder + sep)
            : /^cellgate(\/|$)/.test(specifier) && !publicSpecifiers.has(specifier),
        )
        .map((specifier) => `${file}: ${specifier}`);
    });
    expect(offenders).toEqual([]);
  });

  it('the demo entity documents bundled in cellgate/host are the ones in examples/entities/', () => {
    const bundled = readdirSync(join(root, 'src/host/entities')).sort();
    expect(bundled).toEqual(readdirSync(join(root, 'examples/entities')).sort());
    for (const name of bundled) {
      expect(readFileSync(join(root, 'src/host/entities', name), 'utf8'), name).toBe(readFileSync(join(root, 'examples/entities', name), 'utf8'));
    }
  });
});
