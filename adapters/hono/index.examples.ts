/** The `@example` of {@link toHono}, type-checked (build/jsdoc-examples/sync.ts). */
// #region toHono
import { Hono } from 'hono';
import { createContractHandler } from 'cellgate';
import { toHono } from 'cellgate/adapters/hono';

export const app = new Hono();
app.use('*', toHono(createContractHandler()));
app.get('/', (c) => c.text('my app')); // requests cellgate does not own go on
// #endregion
