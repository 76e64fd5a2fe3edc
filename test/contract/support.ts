/** Helpers for the contract handler tests: requests against a bare handler, no server. */
import { expect } from 'vitest';
import { createContractHandler, type ContractHandler, type ContractHandlerOptions, type FetchHandler } from 'cellgate';

export const ORIGIN = 'http://localhost';

/** A handler per option set, built once per test file. */
export function handlerWith(options?: ContractHandlerOptions): ContractHandler {
  return createContractHandler(options);
}

/** GET (or another method) without a body. */
export function call(handler: FetchHandler, path: string, init: RequestInit = {}): Promise<Response> {
  return handler(new Request(`${ORIGIN}${path}`, init));
}

/** POST a JSON value (serialised here) or raw text. */
export function post(
  handler: FetchHandler,
  path: string,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Response> {
  return handler(
    new Request(`${ORIGIN}${path}`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/** Asserts a JSON answer with `status` and returns its body. */
export async function json<T = any>(response: Response | Promise<Response>, status = 200): Promise<T> {
  const r = await response;
  const text = await r.text();
  expect(r.status, text.slice(0, 500)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/(schema\+)?json/);
  return JSON.parse(text) as T;
}

/** Asserts the error envelope with `status` and `code`, and returns it. */
export async function envelope(response: Response | Promise<Response>, status: number, code: string) {
  const body = await json<{ error: string; message: string; details?: Record<string, any> }>(response, status);
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  expect(Object.keys(body).every((key) => ['error', 'message', 'details'].includes(key))).toBe(true);
  return body;
}
