/** The `@example` of {@link toNodeHandler}, type-checked (build/jsdoc-examples/sync.ts). */
// #region toNodeHandler
import { createServer } from 'node:http';
import { createContractHandler } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';

// Behind a proxy you trust, `trustProxy` takes the client address from X-Forwarded-For.
createServer(toNodeHandler(createContractHandler(), { trustProxy: true })).listen(3000);
// #endregion
