/** The `@example` of {@link cellgatePlugin}, type-checked (build/jsdoc-examples/sync.ts). */
// #region cellgatePlugin
import Fastify from 'fastify';
import { createContractHandler } from 'cellgate';
import { cellgatePlugin } from 'cellgate/adapters/fastify';

const app = Fastify();
await app.register(cellgatePlugin, { handler: createContractHandler(), onError: (error) => app.log.error(error) });
await app.listen({ port: 3000 });
// #endregion
