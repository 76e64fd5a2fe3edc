/** Example manifests and entity definitions (SEED.md "example entry", DECISIONS A11). */
export { ExampleContentSchema, ExampleEntrySchema, ExampleListSchema } from './catalog.ts';
export type { ExampleContent, ExampleEntry } from './catalog.ts';
export { getExample, listExamples } from './load.ts';
