/** `cellgate serve`: not built yet. */
export async function run(_args: string[]): Promise<number> {
  console.error('cellgate serve: not available yet');
  return 1;
}
