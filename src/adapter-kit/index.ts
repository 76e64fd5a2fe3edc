/**
 * `cellgate/adapter-kit`: what an adapter author needs to connect a server or framework to
 * cellgate's Fetch handlers, kept out of the root entry (which is for apps). The adapters shipped
 * in `cellgate/adapters/*` are built from these parts only. Runtime-neutral, like the root entry.
 *
 * - Requests in: hand the core the body without a web stream ({@link READ_BODY}) and the peer
 *   address ({@link setClientAddress} or a {@link CLIENT_ADDRESS} getter).
 * - Responses out: {@link lightResponseParts} gives status, headers and the complete body of the
 *   core's light responses, so an adapter can write them without building a `Response` or its
 *   stream; {@link lightResponse}, {@link rawJsonResponse} and {@link cachedJson} build such answers.
 *   The core hands light answers only to requests marked {@link LIGHT_RESPONSES} (an adapter that
 *   writes them itself sets the mark); every other caller gets a real `Response` ({@link answerFor}).
 * - Failures: {@link errorResponse} turns anything thrown into the `{ error, message }` envelope.
 *
 * The guide is docs/adapters.md ("Writing an adapter").
 *
 * @example
 * import { READ_BODY, errorResponse, lightResponseParts, setClientAddress } from 'cellgate/adapter-kit';
 */
export { READ_BODY, type DirectBodyRequest } from '../http/body.ts';
export { CLIENT_ADDRESS, clientAddress, setClientAddress } from '../http/client-address.ts';
export {
  answerFor,
  isLightResponse,
  LIGHT_RESPONSES,
  lightResponse,
  lightResponseParts,
  type LightResponseParts,
  type LightResponseRequest,
} from '../http/light-response.ts';
export { cachedJson, errorResponse, rawJsonResponse, type ErrorContext } from '../http/responses.ts';
export type { FetchHandler, MatchFunction } from '../http/handler.ts';
export { CellgateError } from '../errors.ts';
