/**
 * How `cellgate validate` prints its findings: `text` (one `file:line:column: field: message` line
 * per problem, or `file: valid`), `json` (one object per file), or `sarif` (SARIF 2.1.0, the format
 * CI code scanning reads).
 */
import type { SourcePosition } from './validate-source.ts';

/** One problem with its place in the source. */
export interface LocatedIssue extends SourcePosition {
  field: string;
  message: string;
}

/** The outcome of one file. */
export interface FileReport {
  file: string;
  kind: string;
  valid: boolean;
  errors: LocatedIssue[];
}

/** The output formats. */
export const FORMATS = ['text', 'json', 'sarif'] as const;
/** An output format. */
export type Format = (typeof FORMATS)[number];

const RULE_ID = 'cellgate/validation';

function sarif(reports: FileReport[]): unknown {
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'cellgate',
            informationUri: 'https://www.npmjs.com/package/cellgate',
            rules: [{ id: RULE_ID, name: 'CellgateValidation', shortDescription: { text: 'Cell manifest and entity document validation' } }],
          },
        },
        results: reports.flatMap((report) =>
          report.errors.map((issue) => ({
            ruleId: RULE_ID,
            level: 'error',
            message: { text: `${issue.field}: ${issue.message}` },
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: issue.file.split('\\').join('/') },
                  region: { startLine: issue.line, startColumn: issue.column },
                },
                logicalLocations: [{ fullyQualifiedName: issue.field }],
              },
            ],
          })),
        ),
      },
    ],
  };
}

/** Renders the reports in `format`. */
export function render(reports: FileReport[], format: Format): string {
  if (format === 'json') return JSON.stringify(reports, null, 2);
  if (format === 'sarif') return JSON.stringify(sarif(reports), null, 2);
  const lines: string[] = [];
  for (const report of reports) {
    if (report.valid) lines.push(reports.length === 1 ? 'valid' : `${report.file}: valid`);
    for (const issue of report.errors) lines.push(`${issue.file}:${issue.line}:${issue.column}: ${issue.field}: ${issue.message}`);
  }
  return lines.join('\n');
}
