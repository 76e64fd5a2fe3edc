/**
 * What `scaffold_primitive` generates for a new custom primitive: its contract (with one example),
 * a README and the updated `primitives.yaml`. Pure: the registry decides whether to write it.
 */
import { Document } from 'yaml';
import { PROJECT_CONFIG_FILE, renderProjectConfig, type ProjectConfig } from './project-config.ts';
import { PrimitiveContractSchema, type PrimitiveContract, type ScaffoldRequest } from './schemas.ts';
import { deriveExample } from './custom-primitive.ts';
import type { ScaffoldWrite } from './project-folder.ts';

/** Version given to a freshly scaffolded primitive. */
export const SCAFFOLD_VERSION = '0.1.0';

/** Folder of a primitive's files, relative to the project folder. */
export function primitiveFolder(key: string): string {
  return `primitives/${key}`;
}

/** The contract and files of a scaffold, given the current registry file. */
export function buildScaffold(request: ScaffoldRequest, config: ProjectConfig): { contract: PrimitiveContract; files: ScaffoldWrite[] } {
  const draft = PrimitiveContractSchema.parse({
    key: request.name,
    version: SCAFFOLD_VERSION,
    label: request.label,
    ...(request.description === undefined ? {} : { description: request.description }),
    category: request.category ?? 'custom',
    props: request.props ?? { type: 'object', properties: {} },
  });
  const contract: PrimitiveContract = { ...draft, examples: [deriveExample(draft)] };
  const folder = primitiveFolder(contract.key);
  const contractFile = `${folder}/${contract.key}.contract.yaml`;
  const registry: ProjectConfig = {
    ...config,
    primitives: [...config.primitives, { key: contract.key, version: contract.version, contract: contractFile }],
  };
  return {
    contract,
    files: [
      { path: contractFile, mode: 'create', content: contractYaml(contract) },
      { path: `${folder}/README.md`, mode: 'create', content: readme(contract, contractFile) },
      { path: PROJECT_CONFIG_FILE, mode: 'replace', content: renderProjectConfig(registry) },
    ],
  };
}

/**
 * Client text on one line: line breaks and other control characters become spaces, so a label
 * cannot end a comment or a heading and start something else.
 */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips
  return text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ');
}

/**
 * The contract file: emitted by the YAML library, header comment included (the library prefixes
 * every comment line with `#`), never assembled from strings, so no label can inject a key.
 */
function contractYaml(contract: PrimitiveContract): string {
  const document = new Document(contract);
  document.commentBefore = ` Contract of the "${oneLine(contract.label)}" primitive. Edit props and examples, then bump the version.`;
  return document.toString();
}

function readme(contract: PrimitiveContract, contractFile: string): string {
  const props = Object.entries(contract.props.properties);
  return [
    `# ${oneLine(contract.label)} (\`${contract.key}\`)`,
    '',
    contract.description ?? 'A project-specific UI primitive.',
    '',
    `- Category: ${contract.category}`,
    `- Version: ${contract.version}`,
    `- Contract: \`${contractFile}\``,
    '',
    '## Props',
    '',
    ...(props.length === 0
      ? ['No props declared yet. Add them under `props.properties` in the contract.']
      : props.map(([name, prop]) => `- \`${name}\` (${prop.type})${prop.description ? `: ${prop.description}` : ''}`)),
    '',
    'Check props with `validate_primitive_props` (MCP) before using the primitive in a page.',
    '',
  ].join('\n');
}
