/** Ordering of semantic versions, enough to pick the newest version of a custom primitive. */

function parts(version: string): { core: number[]; pre: string | undefined } {
  const [main = '', pre] = version.split('+')[0]!.split(/-(.*)/s);
  return { core: main.split('.').map(Number), pre: pre || undefined };
}

/** Negative when `a` is older than `b`, positive when newer, 0 when equal (build metadata ignored). */
export function compareSemver(a: string, b: string): number {
  const left = parts(a);
  const right = parts(b);
  for (let index = 0; index < 3; index += 1) {
    const difference = (left.core[index] ?? 0) - (right.core[index] ?? 0);
    if (difference !== 0) return difference;
  }
  // A pre-release sorts before its release (1.0.0-rc.1 < 1.0.0).
  if (left.pre === right.pre) return 0;
  if (left.pre === undefined) return 1;
  if (right.pre === undefined) return -1;
  return left.pre < right.pre ? -1 : 1;
}
