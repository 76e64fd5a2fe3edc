/** `cellgate token`: not built yet. */
export async function run(_args: string[]): Promise<number> {
  console.error('cellgate token: not available yet');
  return 1;
}
