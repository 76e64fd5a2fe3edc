/** Reading a request's query string without parsing its whole URL. */

const EMPTY = new URLSearchParams();

/**
 * The query parameters of an absolute URL string, as `new URL(url).searchParams` would give them,
 * without parsing the rest of the URL (a request's URL is already valid). Shared and empty when
 * there is no query: read it, do not modify it.
 *
 * @example
 * searchParamsOf('http://localhost/v1/x?limit=5#top').get('limit'); // '5'
 */
export function searchParamsOf(url: string): URLSearchParams {
  const hash = url.indexOf('#');
  const mark = url.indexOf('?');
  if (mark === -1 || (hash !== -1 && hash < mark)) return EMPTY;
  // Sliced from the '?': the constructor drops exactly that one, so a query starting with '?' keeps it.
  return new URLSearchParams(hash === -1 ? url.slice(mark) : url.slice(mark, hash));
}
