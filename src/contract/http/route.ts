/**
 * The shape of one contract route: how it is matched, what it answers, and its documentation, in
 * one object. The router and the OpenAPI generator both read the same table, so a route cannot
 * exist undocumented or be documented with a body it does not check.
 */
import type { z } from 'zod';
import type { ErrorCode } from '../../errors.ts';
import type { ContractContext } from '../context.ts';

/** What a route handler receives. */
export interface RouteInput {
  request: Request;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** Query parameters (first value of each name counts). */
  query: URLSearchParams;
  /** The parsed JSON body for routes declaring `body`; `undefined` otherwise. */
  body: unknown;
  /**
   * Length of the JSON text `body` was parsed from (its nesting already bounded by
   * `parseClientJson`); `undefined` for routes without a body.
   */
  bodyLength: number | undefined;
  /**
   * For routes with `provesBodyDepth`: throws the 400 for a body nested deeper than the limit. The
   * handler calls it before anything recursive touches a body it could not prove shallow. A no-op
   * for every other route (the router bounded the body already).
   */
  boundBodyDepth: () => void;
  context: ContractContext;
}

/** A non-JSON answer documented in OpenAPI by its content type. */
export interface RawContent {
  contentType: string;
  description: string;
}

/** One route of the contract handler. */
export interface RouteDefinition {
  method: 'GET' | 'POST';
  /** Path pattern below the base path (`src/http/path-router.ts`): `:name` one segment, `:name+` the rest of the path. */
  path: string;
  /** OpenAPI operation id (also the `operationId` shown in the docs page). */
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  /** Documented query parameters (the service checks the values; this is their published shape). */
  query?: z.ZodObject;
  /** Documented path parameters. */
  params?: z.ZodObject;
  /** Request body schema: the same zod schema the service parses the body with. */
  body?: z.ZodType;
  /**
   * The handler proves the nesting of the parsed body itself (a compiled check of the whole body
   * that also bounds its depth), so the router skips its scan of the text and hands it over as
   * `boundBodyDepth` for bodies that proof does not cover. The answers are the same either way.
   */
  provesBodyDepth?: boolean;
  /** A request body shown (and pre-filled by "Try it out") in the docs; computed once, when the document is built. */
  example?: () => unknown;
  /** Success (200) answer: a zod schema for JSON, or a raw content type. */
  response: z.ZodType | RawContent;
  /** Content type of a JSON success answer. @default 'application/json; charset=utf-8' */
  contentType?: string;
  /** Error codes this route can answer with besides the generic ones. */
  errors?: ErrorCode[];
  /** Left out of the OpenAPI document (the docs page's own assets). */
  internal?: boolean;
  /**
   * For answers that never change for the same input: a key under which the serialised success
   * body is kept after the first successful call. Only valid inputs reach the cache (a bad one
   * throws first), so the key space is bounded by the catalog.
   */
  cacheKey?: (input: RouteInput) => string;
  /** The JSON text of a result `handle` returned. @default JSON.stringify */
  serialize?: (result: never) => string;
  /** Returns JSON data, or a complete `Response`. Throws `CellgateError` for bad input. */
  handle(input: RouteInput): unknown;
}

/** `/api/examples/:key+` → `/api/examples/{key}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)\+?/g, '{$1}');
}
