/**
 * Longhaul's CLI, a client of the web app's tRPC API (LONGHAUL_URL, default http://127.0.0.1:$PORT;
 * each request gives up after LONGHAUL_CLI_TIMEOUT seconds, default 30: scripts/cli/client.ts).
 * `npm run cli -- --help` lists the commands, `npm run cli -- <command> --help` one command's flags,
 * `npm run cli -- <group> --help` a group's subcommands (eval, profiles, templates, mcp); docs/CLI.md
 * is the guide. This file only dispatches: each command is a module under scripts/cli/ (its spec,
 * declared once for the parser and `--help`, and its body); the families that grew up beside their
 * feature live in scripts/lib/cli-*.ts (scripts/cli/features.ts pairs them with their specs).
 *
 * Auth: LONGHAUL_TOKEN (an API token), else on this machine the admin token `npm start` keeps in
 * DATA_DIR/cli-token (scripts/lib/local-auth.ts); `login` creates one for a remote CLI.
 * Progress goes to stderr; the last stdout line is one compact JSON object — except `eval report
 * --format csv|json`, whose stdout is the export itself. Exit codes (scripts/lib/cli-exit.ts, listed
 * in docs/CLI.md): 0 ok (with --wait or status: completed), 1 the command failed (API error,
 * unreachable app), 2 bad usage (unknown command or flag, bad value — one line per problem, naming
 * the flag and limit), 3 waiting for a human, 4 dead end, 5 failed, 6 cancelled, 7 (status) still
 * queued or running, 8 (eval run --wait) a gate failed.
 */
import { TRPCClientError } from "@trpc/client";
import { EXIT_CODE_TABLE, EXIT_CODES } from "./lib/cli-exit.ts";
import { formatIssues, helpHint, issuesFromMessage, parseCommandLine, relabelFieldMessage, UsageError, type InputIssue } from "./lib/cli-args.ts";
import { terminalSafe } from "./lib/cli-text.ts";
import { timedOut, unreachable } from "./lib/cli-wait.ts";
import { baseUrl, PROGRAM, timeoutS } from "./cli/client.ts";
import { EXIT, RAW, type CliCommand } from "./cli/command.ts";
import { labeller } from "./cli/labels.ts";
import { LAUNCH } from "./cli/launch.ts";
import { LIST, STATUS } from "./cli/tasks.ts";
import { CANCEL, RESUME } from "./cli/batch.ts";
import { DECIDE, ESCALATIONS } from "./cli/escalations.ts";
import { LOGIN } from "./cli/login.ts";
import { COSTS, EVALS, MCP, PROFILES, TEMPLATES } from "./cli/features.ts";

/** Every command, in the order `--help` lists them. */
const COMMANDS: readonly CliCommand[] = [LAUNCH, STATUS, CANCEL, RESUME, LIST, ESCALATIONS, DECIDE, LOGIN, COSTS, ...PROFILES, ...EVALS, ...TEMPLATES, ...MCP];
const SPECS = COMMANDS.map((c) => c.spec);
const ABOUT = `Longhaul CLI — talks to the web app's API at ${baseUrl} (LONGHAUL_URL, or PORT). The last stdout line of a command is one JSON object.`;
const FOOTER = ["Exit codes:", ...EXIT_CODE_TABLE.map((e) => `  ${e.code}  ${e.meaning}`)];

/** Prints usage problems (stderr, one a line, then the help hint) and the JSON line; exit 2. */
function usageExit(problems: string[], command: string | null): never {
  for (const p of problems) console.error(terminalSafe(p));
  console.error(helpHint(PROGRAM, command));
  console.log(JSON.stringify({ error: problems.join("; "), problems }));
  process.exit(EXIT_CODES.usage);
}

async function main(): Promise<void> {
  // A group's subcommands (`eval run`, `profiles apply`, `mcp tools`) are one command each to the parser.
  const parsed = parseCommandLine(process.argv.slice(2), PROGRAM, ABOUT, SPECS, FOOTER);
  if (parsed.kind === "help") {
    console.log(parsed.text);
    process.exit(0);
  }
  if (parsed.kind === "usage_error") usageExit(parsed.problems, parsed.command);
  if (!(timeoutS > 0)) usageExit([`LONGHAUL_CLI_TIMEOUT: a number of seconds above 0, got "${process.env.LONGHAUL_CLI_TIMEOUT}"`], parsed.command);
  try {
    const command = COMMANDS.find((c) => c.spec.name === parsed.command);
    if (!command) throw new UsageError([`"${parsed.command}": unknown command`], null);
    const out = await command.run(parsed.values, parsed.positionals);
    if (out && typeof out === "object" && RAW in out) {
      const text = (out as { [RAW]: string })[RAW];
      await new Promise<void>((r) => process.stdout.write(text, () => r()));
      process.exit(EXIT_CODES.ok);
    }
    console.log(JSON.stringify(out));
    const code = out && typeof out === "object" && EXIT in out ? (out as { [EXIT]: number })[EXIT] : EXIT_CODES.ok;
    process.exit(code);
  } catch (error) {
    if (error instanceof UsageError) usageExit(error.problems, error.command);
    // The server rejected the input (its zod issues come back as JSON, an AppError BAD_INPUT as
    // "<field>: …"): the same one-line-per-problem form, exit 2.
    if (error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "BAD_REQUEST") {
      const labelOf = labeller(parsed.values, parsed.positionals);
      const issues = (error.data as { issues?: InputIssue[] | null } | undefined)?.issues ?? issuesFromMessage(error.message);
      usageExit(issues ? formatIssues(issues, labelOf) : [relabelFieldMessage(error.message, labelOf) ?? error.message], parsed.command);
    }
    // A claim another handler holds: the server names `takeOverFrom`, which is --take-over here.
    const takeOverHint =
      error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "CONFLICT" && /takeOverFrom:/.test(error.message)
        ? "\nAdd --take-over to decide it in their place (the claim moves to you)."
        : "";
    const message = timedOut(error)
      ? `Longhaul at ${baseUrl} did not answer within ${timeoutS} s — the app or its database may be stuck (LONGHAUL_CLI_TIMEOUT sets the limit in seconds)`
      : unreachable(error)
        ? `cannot reach Longhaul at ${baseUrl} — is \`npm start\` running? (set LONGHAUL_URL or PORT)`
        : error instanceof Error
          ? error.message
          : String(error);
    console.error(terminalSafe(message + takeOverHint, { multiline: true }));
    console.log(JSON.stringify({ error: message }));
    process.exit(EXIT_CODES.commandFailed);
  }
}

void main();
