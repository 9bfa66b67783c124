/**
 * The command line of the project's commands (`npm run soak`, `bench`, `preflight`, `smoke`,
 * `openapi`): node's parseArgs, with `--help` answered by the usage (sections, options, defaults) on
 * stdout and exit 0, and a bad command line answered by one line naming what is wrong, then the usage,
 * on stderr, exit 2: never a stack trace.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export interface CommandLineSpec<O extends OptionsConfig> {
  /** How the command is run, e.g. `npm run soak -- --minutes M --seed S [options]`. */
  usage: string;
  /** What the command does, in a sentence or two. */
  summary: string;
  options: O;
  /** What each option means (every option has a line). */
  help: { [K in keyof O]: string };
  /** Extra text after the options (sections, examples). */
  more?: string;
  /** The arguments (default: the process's). */
  args?: string[];
}

/** The usage text: how to run it, what it does, each option with its value and default. */
export function usageText<O extends OptionsConfig>(spec: CommandLineSpec<O>): string {
  const rows = Object.entries(spec.options).map(([name, option]) => {
    const flag = option.type === 'string' ? `--${name} VALUE` : `--${name}`;
    const fallback =
      option.default !== undefined && option.type === 'string' ? ` (default ${String(option.default)})` : '';
    return { flag, text: `${spec.help[name as keyof O]}${fallback}` };
  });
  rows.push({ flag: '--help', text: 'print this and exit' });
  const width = Math.max(...rows.map((r) => r.flag.length)) + 2;
  return [
    `usage: ${spec.usage}`,
    '',
    spec.summary,
    '',
    'options:',
    ...rows.map((r) => `  ${r.flag.padEnd(width)}${r.text}`),
    ...(spec.more ? ['', spec.more] : []),
    '',
  ].join('\n');
}

/** Parses the command line, or answers `--help` (exit 0) and a bad command line (exit 2). */
export function parseCommandLine<O extends OptionsConfig>(spec: CommandLineSpec<O>) {
  const args = spec.args ?? process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usageText(spec));
    process.exit(0);
  }
  try {
    return parseArgs({ args, options: spec.options, strict: true, allowPositionals: false });
  } catch (error) {
    // parseArgs' messages name the option ("Unknown option '--x'", "Option '--seed <value>' argument missing").
    const line = (error as Error).message.split('\n')[0];
    process.stderr.write(`error: ${line}\n\n${usageText(spec)}`);
    process.exit(2);
  }
}
