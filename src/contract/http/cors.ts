/**
 * Optional CORS for the contract handler: headers on every answer it gives, and 204 answers to
 * preflight `OPTIONS` requests on its own paths. Off by default (a same-origin docs page needs none).
 */
import { ConfigurationError } from '../../errors.ts';

/**
 * CORS settings (`createContractHandler({ cors })`). `cors: true` is `{ origin: '*' }`.
 *
 * @example
 * createContractHandler({ cors: { origin: ['https://app.example.com'], maxAge: 3600 } });
 */
export interface CorsOptions {
  /**
   * Allowed origins: `'*'`, one origin, a list of exact origins, or a predicate.
   * @default '*'
   */
  origin?: string | readonly string[] | ((origin: string) => boolean);
  /** Request headers a preflight may ask for. @default the headers the preflight asks for */
  allowHeaders?: readonly string[];
  /** Response headers exposed to scripts. @default [] */
  exposeHeaders?: readonly string[];
  /** Seconds a browser may cache a preflight answer. @default 600 */
  maxAge?: number;
  /** Sends `Access-Control-Allow-Credentials: true` (requires explicit origins, not `'*'`). @default false */
  credentials?: boolean;
}

/** Resolved CORS policy: decides the headers of one answer. */
export interface CorsPolicy {
  /** Headers for an ordinary answer to a request with this `Origin` (empty when not allowed). */
  headers(origin: string | null): Record<string, string>;
  /** Headers for a preflight answer on a path allowing `methods`. */
  preflight(request: Request, methods: string): Record<string, string>;
}

/** Validates `cors` and builds its policy; `undefined` when CORS is off. */
export function createCorsPolicy(option: boolean | CorsOptions | undefined, path = 'options.cors'): CorsPolicy | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && (typeof option !== 'object' || option === null)) {
    throw new ConfigurationError(path, 'must be true, false or an object of CORS settings');
  }
  const settings: CorsOptions = option === true ? {} : option;
  const { origin = '*', allowHeaders, exposeHeaders = [], maxAge = 600, credentials = false } = settings;
  if (!(typeof origin === 'string' || typeof origin === 'function' || (Array.isArray(origin) && origin.every((o) => typeof o === 'string')))) {
    throw new ConfigurationError(`${path}.origin`, "must be '*', an origin, a list of origins or a predicate");
  }
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new ConfigurationError(`${path}.maxAge`, 'must be a non-negative integer of seconds');
  if (credentials && origin === '*') {
    throw new ConfigurationError(`${path}.credentials`, "cannot be combined with origin '*'; list the allowed origins");
  }

  const wildcard = origin === '*';
  const allows = (value: string): boolean =>
    typeof origin === 'function' ? origin(value) : typeof origin === 'string' ? origin === value : origin.includes(value);

  const base = (requestOrigin: string | null): Record<string, string> => {
    if (wildcard) return { 'access-control-allow-origin': '*' };
    if (requestOrigin === null || !allows(requestOrigin)) return { vary: 'Origin' };
    return {
      'access-control-allow-origin': requestOrigin,
      vary: 'Origin',
      ...(credentials ? { 'access-control-allow-credentials': 'true' } : {}),
    };
  };

  return {
    headers(requestOrigin) {
      const headers = base(requestOrigin);
      if (exposeHeaders.length > 0 && headers['access-control-allow-origin']) {
        headers['access-control-expose-headers'] = exposeHeaders.join(', ');
      }
      return headers;
    },
    preflight(request, methods) {
      const headers = base(request.headers.get('origin'));
      if (!headers['access-control-allow-origin']) return headers;
      const requested = request.headers.get('access-control-request-headers');
      const allowed = allowHeaders ? allowHeaders.join(', ') : requested;
      return {
        ...headers,
        'access-control-allow-methods': methods,
        ...(allowed ? { 'access-control-allow-headers': allowed } : {}),
        'access-control-max-age': String(maxAge),
      };
    },
  };
}

// Moved to the shared HTTP helpers (the handler adds the security headers with it too).
export { withHeaders } from '../../http/responses.ts';
