/** The `@example` of {@link createContractHandler}, type-checked (build/jsdoc-examples/sync.ts). */
// #region createContractHandler
import { createServer } from 'node:http';
import { createContractHandler } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';

const contract = createContractHandler({ basePath: '/contract', cors: true });
createServer(toNodeHandler(contract)).listen(3000);
// #endregion
