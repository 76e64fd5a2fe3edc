/**
 * `cellgate/testing`: the conformance suites (vitest) that cellgate runs on its own drivers and
 * adapters, published so third-party ones can prove the same behaviour.
 */
export { runStorageConformance, type RawAuditRows, type StorageConformanceOptions } from './storage-conformance.ts';
