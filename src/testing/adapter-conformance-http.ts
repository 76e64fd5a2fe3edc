/**
 * Raw HTTP helpers of the adapter conformance suite, for what `fetch` cannot do: send a body that
 * never ends, or cut the connection half-way through a request body.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';

/** Status and body of a raw answer. */
export interface RawAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * Sends `bytes` of a chunked body and, without ending the request, waits for the server's answer:
 * proves an oversized body is refused while it is still arriving (never buffered whole).
 */
export function sendEndlessBody(url: string, bytes: number, contentType = 'application/json'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': contentType, 'transfer-encoding': 'chunked' } });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
      });
    });
    req.on('error', (error) => reject(error));
    const chunk = Buffer.alloc(64 * 1024, 32);
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.byteLength;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      // Deliberately no req.end(): the body keeps "arriving" until the server answers.
    };
    req.write('[');
    pump();
  });
}

/** Starts a POST, sends part of its body, then destroys the socket. Resolves once it is cut. */
export function abortMidBody(url: string): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100000' } });
    req.on('error', () => resolve());
    req.write('{"partial": "', () => setTimeout(() => req.destroy(), 50));
    req.on('close', () => resolve());
  });
}

/**
 * Sends a GET with `path` as the request target exactly as written (`fetch` would resolve dot
 * segments and encode characters before sending), and reads the whole answer.
 */
export function rawGet(url: string, path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = httpRequest({ hostname, port, path, method: 'GET' });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}
