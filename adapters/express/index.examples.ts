/** The `@example` of {@link toExpress}, type-checked (build/jsdoc-examples/sync.ts). */
// #region toExpress
import express from 'express';
import { createContractHandler } from 'cellgate';
import { toExpress } from 'cellgate/adapters/express';

const app = express();
app.use(toExpress(createContractHandler(), { onError: (error) => console.error(error) }));
app.use(express.json()); // after cellgate: its bodies reach the core untouched
app.listen(3000);
// #endregion
