/** Example manifests and entity definitions (docs/contract-conventions.md#example-entries, docs/decisions/A11.md). */
export { ExampleContentSchema, ExampleEntrySchema, ExampleListSchema } from './catalog.ts';
export type { ExampleContent, ExampleEntry } from './catalog.ts';
export { getExample, listExamples } from './load.ts';
