/**
 * Run by quick-check-backends.test.ts in a child process (zod's probe of generated code is cached
 * per process): validates the CRM example, optionally after `z.config({ jitless: true })`, and
 * prints whether the quick check was generated code. Argument: `jitless` or `default`.
 */
const { z } = await import('zod');
if (process.argv[2] === 'jitless') z.config({ jitless: true });
const NativeFunction = Function;
let generated = 0;
// Counts only the quick check's own generated module (zod generates code of its own too).
globalThis.Function = new Proxy(NativeFunction, {
  construct(target, args) {
    if (String(args.at(-1)).includes('function quickCheck(')) generated++;
    return Reflect.construct(target, args);
  },
});
const { validateManifest, getExample } = await import('cellgate');
const { valid } = validateManifest(getExample('crm-manifest'));
console.log(JSON.stringify({ valid, generated }));
