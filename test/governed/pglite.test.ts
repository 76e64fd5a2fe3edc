/** The governed HTTP behaviour suite on the PGlite driver: an empty schema of one in-memory PGlite per setup. */
import { afterAll, describe } from 'vitest';
import { driverSkip } from '../storage/drivers.ts';
import { sharedPglite } from '../support/pglite.ts';
import { describeGovernedBehaviour } from './behaviour.ts';

const skip = driverSkip('pglite');

if (skip) describe.skip(`governed HTTP behaviour (pglite), skipped (reason: ${skip})`, () => undefined);
else {
  const pglite = sharedPglite();
  describeGovernedBehaviour('pglite', pglite.storage);
  afterAll(() => pglite.close());
}
