/** `cellgate mcp`: not built yet. */
export async function run(_args: string[]): Promise<number> {
  console.error('cellgate mcp: not available yet');
  return 1;
}
