/** Storage conformance of the in-memory driver. */
import { memoryStorage } from 'cellgate';
import { runStorageConformance } from 'cellgate/testing';
import { driverSkip } from './drivers.ts';

runStorageConformance({ name: 'memory', skip: driverSkip('memory'), create: () => memoryStorage() });
