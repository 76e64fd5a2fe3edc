import { describe, expect, it } from 'vitest';
import { clientAddress, setClientAddress } from 'cellgate/adapter-kit';
import { clientIpOf } from '../../../src/governed/http/request-meta.ts';

const request = (headers: Record<string, string> = {}) => new Request('http://localhost/x', { headers });

describe('client address', () => {
  it('is recorded per request object and absent otherwise', () => {
    const a = request();
    const b = request();
    setClientAddress(a, '10.1.2.3');
    expect(clientAddress(a)).toBe('10.1.2.3');
    expect(clientAddress(b)).toBeUndefined();
  });

  it('feeds the audit ip when the host gives no ip function and trusts no proxy', () => {
    const r = request({ 'x-forwarded-for': '203.0.113.9' });
    setClientAddress(r, '::ffff:192.0.2.7');
    expect(clientIpOf(r, {})).toBe('192.0.2.7');
    expect(clientIpOf(r, { trustProxy: true })).toBe('203.0.113.9');
    expect(clientIpOf(r, { ip: () => '198.51.100.1' })).toBe('198.51.100.1');
  });

  it('never takes X-Forwarded-For from an untrusted client', () => {
    expect(clientIpOf(request({ 'x-forwarded-for': '203.0.113.9' }), {})).toBeNull();
  });
});
