/** Storage conformance of the in-memory driver. */
import { memoryStorage } from '../../src/storage/memory/index.ts';
import { runStorageConformance } from '../../src/testing/storage-conformance.ts';
import { driverSkip } from './drivers.ts';

runStorageConformance({ name: 'memory', skip: driverSkip('memory'), create: () => memoryStorage() });
