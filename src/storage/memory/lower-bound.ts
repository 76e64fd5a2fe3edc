/** Binary search over the memory driver's sorted position lists. */

/** Index of the first entry of `list` for which `before` is false (`before` holds for a prefix of the list). */
export function lowerBound(list: readonly number[], before: (entry: number) => boolean): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (before(list[mid]!)) low = mid + 1;
    else high = mid;
  }
  return low;
}
