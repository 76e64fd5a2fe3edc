#!/usr/bin/env node
/**
 * The `cellgate` command. Each subcommand lives in `commands/<name>.ts` and is loaded only when
 * called, so `cellgate validate` never pays for a database driver.
 *
 * Exit codes: 0 success, 1 the command ran and found a problem (e.g. an invalid manifest),
 * 2 bad arguments.
 */
import { commands, type CommandName } from './commands/registry.ts';

const usage = `Usage: cellgate <command> [options]

Commands:
${Object.entries(commands)
  .map(([name, command]) => `  ${name.padEnd(10)} ${command.summary}`)
  .join('\n')}

Run "cellgate <command> --help" for the options of one command.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    const { default: pkg } = await import('../../package.json', { with: { type: 'json' } });
    console.log(pkg.version);
    return 0;
  }
  if (!Object.hasOwn(commands, name)) {
    console.error(`cellgate: unknown command "${name}". Run "cellgate --help" for the list.`);
    return 2;
  }
  const command = commands[name as CommandName];
  const { run } = await command.load();
  return run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`cellgate: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
