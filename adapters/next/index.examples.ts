/** The `@example` of {@link toNextRouteHandlers}, type-checked (build/jsdoc-examples/sync.ts). */
// #region toNextRouteHandlers
// app/[...cellgate]/route.ts: the factory runs on the first request, never during `next build`.
import { createContractHandler } from 'cellgate';
import { toNextRouteHandlers } from 'cellgate/adapters/next';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = toNextRouteHandlers(() => createContractHandler());
// #endregion
