/**
 * `cellgate/testing`: `createTestApi` for app teams testing their own code on the in-memory driver,
 * and the conformance suites of cellgate's two seams, published so third-party
 * storage drivers and framework adapters can prove themselves with the cases cellgate's own pass.
 * Both register vitest cases (vitest is required by the caller's test run).
 */
export {
  runStorageConformance,
  storageConformanceSuites,
  type StorageConformanceOptions,
  type StorageConformanceSuite,
  type StorageSuiteName,
  type RawAuditRows,
} from './storage-conformance.ts';
export {
  runAdapterConformance,
  type AdapterConformanceOptions,
  type AdapterConformanceSkips,
  type AdapterServer,
  type AdapterStartOptions,
} from './adapter-conformance.ts';
export { createTestApi, TEST_IDS, type TestActor, type TestApi, type TestApiOptions, type TestIdOptions, type TestRequestInit } from './app-testing.ts';
export type { TestClient, TestResourceClient, TestListQuery } from './test-client.ts';
export { runLogTamperSuite, type LogTamperSuiteOptions } from './log-tamper.ts';
