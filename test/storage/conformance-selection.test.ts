/**
 * Selection in the storage conformance suite: `suites` registers only the named suites, `disable`
 * skips single tests with the reason in their title, and misspelt names are configuration errors.
 * The registered tests are read back from this file's own task tree (this case runs last).
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError, memoryStorage } from 'cellgate';
import { runStorageConformance } from 'cellgate/testing';

const DISABLED = 'refuses a second record with the same id';

runStorageConformance({
  name: 'memory (records only)',
  create: () => memoryStorage(),
  suites: ['records', 'durability'],
  disable: { [DISABLED]: 'shown as the reason' },
});

interface TaskNode {
  name: string;
  mode: string;
  type: string;
  tasks?: TaskNode[];
}

function leaves(node: TaskNode, path: string[] = []): Array<{ path: string; mode: string }> {
  if (!node.tasks) return [{ path: [...path, node.name].join(' > '), mode: node.mode }];
  return node.tasks.flatMap((child) => leaves(child, [...path, node.name]));
}

describe('conformance selection', () => {
  it('registers the selected suites only, and the disabled test as skipped with its reason', ({ task }) => {
    const file = task.file as unknown as TaskNode;
    const conformance = file.tasks!.find((node) => node.name === 'storage conformance: memory (records only)')!;
    const tests = leaves(conformance).map((leaf) => ({ ...leaf, path: leaf.path.replace(/^storage conformance: memory \(records only\) > /, '') }));
    expect(tests.every((test) => test.path.startsWith('records > ') || test.path.startsWith('durability (needs capabilities.durable) > '))).toBe(true);
    expect(tests.filter((test) => test.path.startsWith('records > ')).length).toBeGreaterThan(3);
    // The durability case ran before this one and skipped itself: memory declares durable false.
    expect(tests.filter((test) => test.mode === 'skip').map((test) => test.path)).toEqual([
      `records > ${DISABLED} (disabled: shown as the reason)`,
      'durability (needs capabilities.durable) > keeps what a committed transaction wrote for a new driver after the writer closed',
    ]);
  });

  it('refuses an unknown suite name', () => {
    expect(() => runStorageConformance({ name: 'x', create: () => memoryStorage(), suites: ['recordz' as never] })).toThrow(ConfigurationError);
    expect(() => runStorageConformance({ name: 'x', create: () => memoryStorage(), suites: ['recordz' as never] })).toThrow(
      /options\.suites\.0: "recordz" is not a suite/,
    );
  });
});
