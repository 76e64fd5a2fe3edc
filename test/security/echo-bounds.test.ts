/**
 * What comes back stays bounded when an error quotes what the client sent. Before the bound, a
 * 900 KB string came back whole (twice for an unknown resource URI): in the message of a
 * REST error, in `details.fields`, in validation results, in MCP tool errors and in the SDK's
 * "not found". Each text an error carries is now cut at MAX_ERROR_TEXT_LENGTH characters, and the
 * MCP endpoint refuses tool names and resource URIs longer than any it serves.
 */
import { CellgateError, createContractHandler, createGovernedApi, getExample, memoryStorage, type FetchHandler } from 'cellgate';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_ERROR_TEXT_LENGTH, MAX_MCP_NAME_LENGTH, MAX_MCP_URI_LENGTH } from '../../src/limits.ts';
import { customer, demoEntity, mint, paths, SECRET, send } from '../governed/support.ts';

const huge = 'q'.repeat(400_000);
/** Far above any bounded answer below, far below the echo of `huge`. */
const SMALL_ANSWER = 12_000;
const cut = 'q'.repeat(MAX_ERROR_TEXT_LENGTH - 20);

function mcpCall(handler: FetchHandler, method: string, params: Record<string, unknown>) {
  return send(handler, 'POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: { accept: 'application/json, text/event-stream' } });
}

describe('errors that quote the request are bounded', () => {
  const contract = createContractHandler({ mcp: { allowedHosts: ['test.local'] } });
  let governed: FetchHandler;
  let token: string;
  beforeAll(async () => {
    const api = createGovernedApi({ storage: memoryStorage(), auth: { secret: SECRET }, resources: [demoEntity('customer')] as never[] });
    await api.migrate();
    governed = api;
    token = await mint({ roles: ['admin'] });
  });

  it('cuts a CellgateError message and its field texts, and leaves short ones alone', () => {
    const error = new CellgateError('VALIDATION_ERROR', `Unknown ${huge}`, {
      details: {
        fields: [
          { path: huge, message: huge },
          { path: 'a', message: 'b' },
        ],
        other: huge,
      },
    });
    expect(error.message).toHaveLength(MAX_ERROR_TEXT_LENGTH + 1);
    expect(error.message.endsWith('…')).toBe(true);
    const fields = error.details!.fields as Array<{ path: string; message: string }>;
    expect(fields[0]!.path).toBe(`${'q'.repeat(MAX_ERROR_TEXT_LENGTH)}…`);
    expect(fields[0]!.message).toBe(`${'q'.repeat(MAX_ERROR_TEXT_LENGTH)}…`);
    expect(fields[1]).toEqual({ path: 'a', message: 'b' });
    expect(new CellgateError('NOT_FOUND', 'Record not found').message).toBe('Record not found');
    const exact = 'x'.repeat(MAX_ERROR_TEXT_LENGTH);
    expect(new CellgateError('NOT_FOUND', exact).message).toBe(exact);
  });

  it('REST: a query value, a path parameter and an unknown record member', async () => {
    const answers = [
      await send(contract, 'GET', `/api/primitives?category=${'q'.repeat(6000)}`),
      await send(contract, 'GET', `/api/schemas/page?type=${'q'.repeat(6000)}`),
      await send(contract, 'GET', `/api/examples/${'q'.repeat(6000)}`),
      await send(governed, 'POST', paths.customers(), { token, body: { ...customer(), [huge]: 1 } }),
      await send(governed, 'GET', `${paths.customers()}?${'q'.repeat(6000)}=1`, { token }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 404, 400, 400]);
    for (const answer of answers) {
      expect(answer.text.length).toBeLessThan(SMALL_ANSWER);
      expect(answer.text).toContain(cut);
      expect(answer.text).toContain('…');
    }
  });

  it('validation results: an unknown key and a wrong value quoted by the issue messages', async () => {
    const manifest = structuredClone(getExample('crm-manifest')) as Record<string, unknown> & {
      spec: { entities: Array<{ fields: Array<{ type: string }> }> };
    };
    manifest[huge] = 1;
    manifest.spec.entities[0]!.fields[0]!.type = huge;
    const rest = await send(contract, 'POST', '/api/validate/manifest', { body: { manifest } });
    expect(rest.status).toBe(200);
    expect(rest.body.valid).toBe(false);
    expect(rest.body.errors.map((issue: { field: string }) => issue.field)).toEqual(['spec.entities.0.fields.0.type', 'root']);
    expect(rest.text.length).toBeLessThan(SMALL_ANSWER);
    for (const issue of rest.body.errors as Array<{ message: string }>) expect(issue.message.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_LENGTH + 1);
    const mcp = await mcpCall(contract, 'tools/call', { name: 'validate_manifest', arguments: { manifest } });
    expect(mcp.body.result.structuredContent).toEqual(rest.body);
    expect(mcp.text.length).toBeLessThan(3 * SMALL_ANSWER);
  });

  it('MCP: tool errors, and tool names and resource URIs longer than any served', async () => {
    const toolErrors = [
      await mcpCall(contract, 'tools/call', { name: 'list_primitives', arguments: { category: huge } }),
      await mcpCall(contract, 'tools/call', { name: 'get_page_schema', arguments: { pageType: huge } }),
      await mcpCall(contract, 'tools/call', { name: 'get_example_manifest', arguments: { example: huge } }),
    ];
    for (const answer of toolErrors) {
      expect(answer.body.result.isError).toBe(true);
      expect(answer.text.length).toBeLessThan(SMALL_ANSWER);
      expect(answer.text).toContain(cut);
    }
    const name = await mcpCall(contract, 'tools/call', { name: huge, arguments: {} });
    expect(name.body.error).toEqual({ code: -32602, message: `Invalid params: tools/call "name" must be at most ${MAX_MCP_NAME_LENGTH} characters.` });
    const uri = await mcpCall(contract, 'resources/read', { uri: `cellgate://docs/${huge}` });
    expect(uri.body.error).toEqual({ code: -32602, message: `Invalid params: resources/read "uri" must be at most ${MAX_MCP_URI_LENGTH} characters.` });
    // Names and URIs within the bounds still get the SDK's own answer.
    const unknown = await mcpCall(contract, 'tools/call', { name: 'q'.repeat(MAX_MCP_NAME_LENGTH), arguments: {} });
    expect(unknown.body.error.code).toBe(-32602);
    expect(unknown.body.error.message).toContain('not found');
  });

  it('keeps ordinary messages word for word', async () => {
    const answer = await send(contract, 'GET', '/api/schemas/page?type=abc');
    expect(answer.body.message).toBe('Unknown page type: abc. Valid types: entity-list, entity-detail, entity-create, entity-edit, dashboard, custom');
    const record = await send(governed, 'POST', paths.customers(), { token, body: { ...customer(), extra: 1 } });
    expect(record.body.details.fields).toEqual([{ path: 'extra', message: expect.any(String) }]);
  });
});
