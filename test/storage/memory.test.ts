/** Storage conformance of the in-memory driver. */
import { memoryStorage } from '../../src/storage/memory/index.ts';
import { runStorageConformance } from 'cellgate/testing';
import { driverSkip } from './drivers.ts';

runStorageConformance({ name: 'memory', skip: driverSkip('memory'), create: () => memoryStorage() });
