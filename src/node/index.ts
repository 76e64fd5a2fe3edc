/**
 * `cellgate/node`: the parts of cellgate that need a file system (Node, Bun, Deno), kept out of
 * the runtime-neutral root entry. Today: the project folder of local mode.
 */
export { nodeProjectFolder } from './project-folder.ts';
export type { ProjectFolder, ScaffoldWrite } from '../contract/catalog/project-folder.ts';
