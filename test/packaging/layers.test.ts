/**
 * The layers of the repository, read from the sources: the shipped code under `src/` and
 * `adapters/` never imports `examples/` (that would compile the examples into `dist/`), and each
 * example imports only the package's public entry points (plus its own folder and other packages),
 * so it reads exactly like an app that installed cellgate.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as root from 'cellgate';
import * as kit from 'cellgate/adapter-kit';
import { packageEntries } from '../../entries.config.ts';
import { clientAddress as internalClientAddress } from '../../src/http/client-address.ts';

const repository = resolve(import.meta.dirname, '../..');

/** Every `.ts`/`.mts`/`.js`/`.mjs` file under `dir`, skipping build output and installs. */
function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(repository, dir), { withFileTypes: true })) {
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
  const patterns = [/(?:^|[;\n}])\s*(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?["']([^"']+)["']/g, /\bimport\s*\(\s*["'`]([^"'`]+)["'`]/g];
  return [...new Set(patterns.flatMap((pattern) => [...stripped.matchAll(pattern)].map((match) => match[1]!)))];
}

/** The folder (relative to the repository) a relative specifier of `file` points into. */
function target(file: string, specifier: string): string {
  return relative(repository, resolve(repository, dirname(file), specifier));
}

const publicSpecifiers = new Set(packageEntries.map((entry) => entry.specifier));

describe('layers', () => {
  it('finds imports of every kind (the checks below would pass vacuously otherwise)', () => {
    const code = `import a from './a.ts';\nimport type { B } from "../b.ts";\nexport * from './c.ts';\nconst d = await import('../../examples/d.ts');\n// import e from './e.ts';`;
    expect(importSpecifiers(code)).toEqual(['./a.ts', '../b.ts', './c.ts', '../../examples/d.ts']);
  });

  it.each(['src', 'adapters'])('no file under %s/ imports from examples/', (dir) => {
    const offenders = sources(dir).flatMap((file) =>
      importSpecifiers(readFileSync(join(repository, file), 'utf8'))
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
      return importSpecifiers(readFileSync(join(repository, file), 'utf8'))
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
    const bundled = readdirSync(join(repository, 'src/host/entities')).sort();
    expect(bundled).toEqual(readdirSync(join(repository, 'examples/entities')).sort());
    for (const name of bundled) {
      expect(readFileSync(join(repository, 'src/host/entities', name), 'utf8'), name).toBe(readFileSync(join(repository, 'examples/entities', name), 'utf8'));
    }
  });
});

describe('the adapter kit', () => {
  /** The seams and fast paths only adapters use: in `cellgate/adapter-kit`, not in the root entry. */
  const adapterOnly = [
    'READ_BODY',
    'CLIENT_ADDRESS',
    'setClientAddress',
    'lightResponse',
    'lightResponseParts',
    'isLightResponse',
    'rawJsonResponse',
    'cachedJson',
    'LIGHT_RESPONSES',
    'answerFor',
  ];

  it.each(adapterOnly)('%s is exported by cellgate/adapter-kit and not by the root entry', (name) => {
    expect(kit).toHaveProperty(name);
    expect(root).not.toHaveProperty(name);
  });

  it('shares its values with the root entry and the governed side (one error class, one client-address table)', () => {
    expect(kit.CellgateError).toBe(root.CellgateError);
    const request = new Request('http://localhost/');
    kit.setClientAddress(request, '192.0.2.1');
    expect(internalClientAddress(request)).toBe('192.0.2.1');
  });

  it('is where adapters/ takes cellgate from: no adapter imports the root entry or src/', () => {
    // A `*.examples.ts` file is an app's code (its JSDoc example, type-checked, never built): it imports the root entry as an app does.
    const offenders = sources('adapters')
      .filter((file) => !file.endsWith('.examples.ts'))
      .flatMap((file) =>
        importSpecifiers(readFileSync(join(repository, file), 'utf8'))
          .filter((specifier) => specifier === 'cellgate' || (specifier.startsWith('.') && target(file, specifier).split(sep)[0] !== 'adapters'))
          .map((specifier) => `${file}: ${specifier}`),
      );
    expect(offenders).toEqual([]);
  });
});
