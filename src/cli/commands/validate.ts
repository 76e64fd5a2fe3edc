/** `cellgate validate`: not built yet. */
export async function run(_args: string[]): Promise<number> {
  console.error('cellgate validate: not available yet');
  return 1;
}
