/** `cellgate migrate`: not built yet. */
export async function run(_args: string[]): Promise<number> {
  console.error('cellgate migrate: not available yet');
  return 1;
}
