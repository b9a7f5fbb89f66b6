/**
 * The command line of a one-command script (a benchmark, chaos, `npm start`, `npm test`, the
 * checks), over the one parser (scripts/lib/cli-args.ts): the script declares its flags once with
 * `defineScript`, and `parseScriptArgs` answers `--help` with them (stdout, exit 0) or refuses an
 * unknown flag or a bad value — one line per problem on stderr naming the flag and its limit, the
 * help hint, and `{"error", "problems"}` as the last stdout line like every script's — with exit 2
 * (EXIT_CODES.usage, as the CLI's).
 */
import {
  helpHint,
  parseCommandLine,
  parseScriptLine,
  type CommandSpec,
  type FlagSpecs,
  type FlagValues,
  type ScriptSpec,
  type ScriptValues,
} from "./cli-args.ts";
import { EXIT_CODES } from "./cli-exit.ts";
import { terminalSafe } from "./cli-text.ts";

/** A script's spec with its flags' literal types kept, so `parseScriptArgs` returns typed values (and `check` sees them). */
export function defineScript<const F extends FlagSpecs>(spec: ScriptSpec<F>): ScriptSpec<F> {
  return spec;
}

/** The parsed flags of a spec made by `defineScript`: `async function main(flags: FlagsOf<typeof SCRIPT>)`. */
export type FlagsOf<S> = S extends ScriptSpec<infer F> ? ScriptValues<F> : never;

/**
 * The script's flags from `argv` (default: this process's arguments), typed by `spec`. Prints the
 * help and exits 0 on `--help`/`-h`; prints the problems and exits 2 on bad usage. Never returns then.
 */
export function parseScriptArgs<F extends FlagSpecs>(spec: ScriptSpec<F>, argv: readonly string[] = process.argv.slice(2)): ScriptValues<F> {
  const parsed = parseScriptLine(argv, spec);
  if (parsed.kind === "help") helpExit(parsed.text);
  if (parsed.kind === "usage_error") usageExit(parsed.problems, helpHint(spec.program, null));
  return parsed.values;
}

/**
 * The command line of a script of a few commands (`<command> [positionals] [flags]`, e.g.
 * scripts/migrate.ts): the command, its flags and positionals, with `--help` and bad usage handled
 * as `parseScriptArgs` handles them. Never returns on help or bad usage.
 */
export function parseCommandArgs(
  program: string,
  about: string,
  commands: readonly CommandSpec[],
  argv: readonly string[] = process.argv.slice(2),
): { command: string; values: FlagValues; positionals: string[] } {
  const parsed = parseCommandLine(argv, program, about, commands);
  if (parsed.kind === "help") helpExit(parsed.text);
  if (parsed.kind === "usage_error") usageExit(parsed.problems, helpHint(program, parsed.command));
  return parsed;
}

function helpExit(text: string): never {
  process.stdout.write(`${text}\n`);
  process.exit(EXIT_CODES.ok);
}

/** One line per problem and the help hint on stderr, `{"error", "problems"}` as the last stdout line; exit 2. */
function usageExit(problems: readonly string[], hint: string): never {
  for (const p of problems) process.stderr.write(`${terminalSafe(p)}\n`);
  process.stderr.write(`${hint}\n`);
  process.stdout.write(`${JSON.stringify({ error: problems.join("; "), problems })}\n`);
  process.exit(EXIT_CODES.usage);
}
