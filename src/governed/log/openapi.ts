/**
 * The OpenAPI entries of the verifiable log's routes (docs/verifiable-history.md#http), added to
 * the governed document when the API has a `log`. They sit beside the operation table (B36), so
 * they are described here, from the same shapes `proofs.ts` answers.
 */
type Json = Record<string, unknown>;

const error = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string): Json => ({ description, content: { 'application/json': { schema: error } } });
const base64 = { type: 'string', contentEncoding: 'base64' };
const size = (name: string, description: string, required: boolean): Json => ({
  name,
  in: 'query',
  required,
  description,
  schema: { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 },
});
const auditId: Json = { name: 'auditId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

const InclusionProof = {
  type: 'object',
  required: ['leafIndex', 'treeSize', 'leafHash', 'hashes'],
  properties: { leafIndex: { type: 'integer' }, treeSize: { type: 'integer' }, leafHash: base64, hashes: { type: 'array', items: base64 } },
};
const ConsistencyProof = {
  type: 'object',
  required: ['from', 'to', 'hashes'],
  properties: { from: { type: 'integer' }, to: { type: 'integer' }, hashes: { type: 'array', items: base64 } },
};
const ProofBundle = {
  type: 'object',
  required: ['record', 'leaf', 'proof', 'checkpoint'],
  properties: {
    record: { $ref: '#/components/schemas/AuditRecord' },
    leaf: {
      type: 'object',
      required: ['index', 'hash', 'openings'],
      properties: { index: { type: 'integer' }, hash: base64, openings: { type: 'object', additionalProperties: true } },
    },
    proof: { type: 'object', required: ['treeSize', 'hashes'], properties: { treeSize: { type: 'integer' }, hashes: { type: 'array', items: base64 } } },
    checkpoint: { type: 'string', description: 'The signed checkpoint (C2SP signed note) the proof is against.' },
  },
};

const data = (schema: Json): Json => ({
  description: 'Success. `Cache-Control: no-store`.',
  content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: schema } } } },
});

/** `document` with the log's four paths (and its proof schemas) added; the same object, changed. */
export function withLogPaths(document: Record<string, unknown>, basePath: string): Record<string, unknown> {
  const paths = (document.paths ?? {}) as Record<string, Json>;
  const common = { tags: ['audit'], security: [{ bearerAuth: [] }] };
  const failures = {
    '400': errorResponse('A malformed or unknown parameter, or a size past the tree (`VALIDATION_ERROR`).'),
    '401': errorResponse('No valid token.'),
    '403': errorResponse('Needs `audit:read`.'),
  };
  paths[`${basePath}/v1/audit/checkpoint`] = {
    get: {
      ...common,
      operationId: 'getAuditCheckpoint',
      summary: "A signed checkpoint of the tenant's audit log",
      description: 'C2SP signed note: `<origin>/<tenantId>`, tree size, base64 root hash, a blank line, then `— <key name> <base64(key hash ‖ signature)>`.',
      responses: { '200': { description: 'Success. `Cache-Control: no-store`.', content: { 'text/plain': { schema: { type: 'string' } } } }, ...failures },
    },
  };
  paths[`${basePath}/v1/audit/proof`] = {
    get: {
      ...common,
      operationId: 'getAuditConsistencyProof',
      summary: 'RFC 6962 consistency proof between two tree sizes',
      parameters: [size('from', 'The earlier tree size.', true), size('to', 'The later tree size, at most the current one.', true)],
      responses: { '200': data({ $ref: '#/components/schemas/ConsistencyProof' }), ...failures },
    },
  };
  paths[`${basePath}/v1/audit/{auditId}/proof`] = {
    get: {
      ...common,
      operationId: 'getAuditInclusionProof',
      summary: "RFC 6962 inclusion proof of one audit record's leaf",
      parameters: [auditId, size('size', 'The tree size (default: the current one); more than the leaf index.', false)],
      responses: { '200': data({ $ref: '#/components/schemas/InclusionProof' }), ...failures, '404': errorResponse('No such record in your reach.') },
    },
  };
  paths[`${basePath}/v1/audit/{auditId}/bundle`] = {
    get: {
      ...common,
      operationId: 'getAuditProofBundle',
      summary: 'A self-contained proof bundle of one audit record',
      parameters: [auditId],
      responses: {
        '200': data({ $ref: '#/components/schemas/ProofBundle' }),
        ...failures,
        '403': errorResponse('Needs `audit:read`; refused when field permissions hide fields of the record.'),
        '404': errorResponse('No such record in your reach.'),
      },
    },
  };
  const components = (document.components ?? {}) as { schemas?: Record<string, unknown> };
  components.schemas = { ...components.schemas, InclusionProof, ConsistencyProof, ProofBundle };
  return Object.assign(document, { paths, components });
}
