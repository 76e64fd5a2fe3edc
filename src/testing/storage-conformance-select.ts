/**
 * Selection inside the storage conformance suite: the `it` every conformance case registers with.
 * While a suite registers its cases, the runner sets what applies to it (the tests the caller
 * disabled, with their reasons, and the driver capabilities the suite needs); `it` then registers
 * a disabled test as skipped with its reason in the name, and skips a test at run time when the
 * driver declares it lacks a needed capability.
 */
import { describe as vitestDescribe, it as vitestIt, type TestContext } from 'vitest';
import type { StorageCapabilities, StorageDriver } from '../storage/types.ts';

/** What applies to the cases being registered. */
export interface Selection {
  /** Test name → reason, from the caller's `disable` option. */
  disable: Readonly<Record<string, string>>;
  /** Names of `disable` that matched a test, to refuse a misspelt name afterwards. */
  matched: Set<string>;
  /** Capabilities the current suite needs. */
  requires: readonly (keyof StorageCapabilities)[];
  /** The driver under test (created in `beforeAll`, so read at run time). */
  driver: () => StorageDriver;
}

let current: Selection | undefined;

/** Runs `register` with `selection` applied to every case it registers. */
export function registerWith(selection: Selection | undefined, register: () => void): void {
  const previous = current;
  current = selection;
  try {
    register();
  } finally {
    current = previous;
  }
}

/** The body of one conformance case. */
type TestBody = (context: TestContext) => unknown;

/**
 * vitest's `describe`, carrying the current {@link Selection} into its block: vitest runs a nested
 * block's factory after the enclosing one has returned, when the selection would be gone.
 */
export function describe(name: string, factory: () => void): void {
  const selection = current;
  vitestDescribe(name, () => registerWith(selection, factory));
}

/** vitest's `it`, honouring the {@link Selection} of the suite being registered. */
export function it(name: string, body: TestBody, timeout?: number): void {
  const selection = current;
  const reason = selection?.disable[name];
  if (selection && reason !== undefined) {
    selection.matched.add(name);
    vitestIt.skip(`${name} (disabled: ${reason})`, body, timeout);
    return;
  }
  const requires = selection?.requires ?? [];
  const driver = selection?.driver;
  vitestIt(
    name,
    async (context) => {
      const missing = driver ? requires.filter((capability) => !driver().capabilities[capability]) : [];
      if (missing.length > 0) {
        context.skip(`the driver declares ${missing.map((capability) => `capabilities.${capability}`).join(' and ')} false`);
        return;
      }
      await body(context);
    },
    timeout,
  );
}
