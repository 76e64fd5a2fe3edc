/**
 * The Host/Origin checks of the MCP endpoint (DNS-rebinding protection), on `Request` objects:
 * loopback-only defaults, explicit allow-lists for deployments, and the `'*'` opt-outs.
 */
import { describe, expect, it } from 'vitest';
import { refusedOrigin, type OriginGuardOptions } from '../../src/contract/mcp/origin-guard.ts';

function check(host: string, origin: string | undefined, options: OriginGuardOptions = {}) {
  const headers = new Headers({ host });
  if (origin !== undefined) headers.set('origin', origin);
  return refusedOrigin(new Request(`http://${host}/mcp`, { method: 'POST', headers }), options);
}

describe('default: loopback only', () => {
  it.each(['localhost', 'localhost:3000', '127.0.0.1:8080', '[::1]:3000', 'LOCALHOST:1'])('accepts Host %s', (host) => {
    expect(check(host, undefined)).toBeUndefined();
  });

  it.each(['evil.example.com', 'evil.example.com:3000', '127.0.0.1.evil.com', 'localhost.evil.com', '10.0.0.5:3000'])('refuses Host %s', (host) => {
    expect(check(host, undefined)).toMatch(/Host/);
  });

  it.each(['http://localhost:5173', 'https://127.0.0.1', 'http://[::1]:8080'])('accepts Origin %s', (origin) => {
    expect(check('localhost:3000', origin)).toBeUndefined();
  });

  it.each(['http://evil.example.com', 'null', 'file://', 'http://localhost.evil.com', 'chrome-extension://abc'])('refuses Origin %s', (origin) => {
    expect(check('localhost:3000', origin)).toMatch(/Origin/);
  });
});

describe('configured for a deployment', () => {
  const options: OriginGuardOptions = { allowedHosts: ['api.example.com', 'internal:8443'], allowedOrigins: ['https://app.example.com'] };

  it('accepts listed hosts (a port-less entry matches any port) and refuses others, loopback included', () => {
    expect(check('api.example.com', undefined, options)).toBeUndefined();
    expect(check('api.example.com:443', undefined, options)).toBeUndefined();
    expect(check('internal:8443', undefined, options)).toBeUndefined();
    expect(check('internal:9000', undefined, options)).toMatch(/Host/);
    expect(check('localhost:3000', undefined, options)).toMatch(/Host/);
  });

  it('accepts listed origins and same-host origins, refuses others', () => {
    expect(check('api.example.com', 'https://app.example.com', options)).toBeUndefined();
    expect(check('api.example.com', 'https://api.example.com', options)).toBeUndefined();
    expect(check('api.example.com', 'https://evil.example.com', options)).toMatch(/Origin/);
  });

  it("'*' switches each check off separately", () => {
    expect(check('anything.example', undefined, { allowedHosts: '*' })).toBeUndefined();
    expect(check('anything.example', 'https://elsewhere.example', { allowedHosts: '*' })).toMatch(/Origin/);
    expect(check('anything.example', 'https://elsewhere.example', { allowedHosts: '*', allowedOrigins: '*' })).toBeUndefined();
  });

  it('judges a Request without a Host header by its URL', () => {
    expect(refusedOrigin(new Request('http://127.0.0.1:3000/mcp'), {})).toBeUndefined();
    expect(refusedOrigin(new Request('http://evil.example/mcp'), {})).toMatch(/Host/);
  });
});
