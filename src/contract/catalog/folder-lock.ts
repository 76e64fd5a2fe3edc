/**
 * One queue per project folder: scaffold writes into the same folder run one after another, so
 * each one reads the registry file the previous one wrote (five concurrent scaffolds keep five
 * entries). Keyed by the folder's real path, so two registries on one folder share the queue.
 */

const queues = new Map<string, Promise<unknown>>();

/** Runs `task` after every task queued earlier for `folder` has settled; answers what it answers. */
export function serialised<T>(folder: string, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(folder) ?? Promise.resolve();
  const run = previous.then(task, task);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(folder, settled);
  // Forget an idle folder so the map does not grow with every folder ever used.
  void settled.then(() => {
    if (queues.get(folder) === settled) queues.delete(folder);
  });
  return run;
}
