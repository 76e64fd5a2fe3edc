/**
 * The per-request server of the HTTP endpoint registers only what its one request can reach;
 * the stdio server (no scope) registers everything. Both list all 19 tools.
 */
import { describe, expect, it } from 'vitest';
import { createContractContext } from '../../src/contract/context.ts';
import { createMcpServer, scopeOf } from '../../src/contract/mcp/server.ts';

const registered = (server: ReturnType<typeof createMcpServer>) => {
  const internals = server as unknown as { _registeredTools: Record<string, unknown>; _registeredResources: Record<string, unknown> };
  return { tools: Object.keys(internals._registeredTools), resources: Object.keys(internals._registeredResources) };
};

describe('scopeOf', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_page' } }, ['validate_page'], false],
    [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 42 } }, [], false],
    [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, [], false],
    [{ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'platform://docs/field-types' } }, [], true],
    [{ jsonrpc: '2.0', id: 1, method: 'initialize' }, [], false],
  ])('%j → tools %j, resources %s', (message, tools, resources) => {
    const scope = scopeOf(message);
    expect(scope.tools === 'all' ? 'all' : [...scope.tools]).toEqual(tools);
    expect(scope.resources).toBe(resources);
  });

  it('gives a batch or a non-object the full server', () => {
    expect(scopeOf([{ method: 'tools/list' }])).toEqual({ tools: 'all', resources: true });
    expect(scopeOf('x')).toEqual({ tools: 'all', resources: true });
  });
});

describe('createMcpServer', () => {
  const context = createContractContext();

  it('registers all 19 tools and 5 resources without a scope', () => {
    const { tools, resources } = registered(createMcpServer(context));
    expect(tools).toHaveLength(19);
    expect(resources).toHaveLength(5);
  });

  it('registers only the called tool for a scoped tools/call', () => {
    const { tools, resources } = registered(createMcpServer(context, scopeOf({ method: 'tools/call', params: { name: 'list_examples' } })));
    expect(tools).toEqual(['list_examples']);
    expect(resources).toEqual([]);
  });
});
