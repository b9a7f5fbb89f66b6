/**
 * Command-line parsing for scripts/cli.ts: command and flag specs, `--help` text, and problems
 * reported one line each, naming the flag and its limit. Built on node:util `parseArgs` (strict
 * mode: unknown flags and missing values are errors). Pure, no I/O: the caller decides where text
 * goes and which exit code follows.
 */
import { parseArgs } from "node:util";

/** One flag of a command. `int` flags are checked here (integer within [min, max]); `choices` limits a string flag. */
export interface FlagSpec {
  type: "string" | "boolean";
  /** Placeholder shown in help, e.g. "<n>". */
  value?: string;
  description: string;
  int?: { min: number; max: number };
  choices?: readonly string[];
  /** Checks a string flag's value: a usage line naming the flag, or null when it is fine (so it is reported with the other problems). */
  check?: (raw: string) => string | null;
  short?: string;
}

/** One command: its positionals (required unless `optional`, which come last), flags and examples for `--help`. */
export interface CommandSpec {
  name: string;
  summary: string;
  positionals?: readonly { name: string; description: string; optional?: boolean }[];
  flags?: Readonly<Record<string, FlagSpec>>;
  examples: readonly string[];
  /** Extra lines printed under the flags in `<command> --help`. */
  notes?: readonly string[];
}

/** Parsed flag values: strings, booleans, or numbers for `int` flags; absent flags are undefined. */
export type FlagValues = Record<string, string | boolean | number | undefined>;

/** What the command line asks for. `usage_error` problems are one line each, ready to print. */
export type ParsedCommandLine =
  | { kind: "help"; text: string }
  | { kind: "run"; command: string; values: FlagValues; positionals: string[] }
  | { kind: "usage_error"; command: string | null; problems: string[] };

/** An input problem found after parsing (e.g. by zod, or a flag combination): exit 2 with these lines. */
export class UsageError extends Error {
  readonly problems: string[];
  readonly command: string | null;
  constructor(problems: string[], command: string | null) {
    super(problems.join("\n"));
    this.name = "UsageError";
    this.problems = problems;
    this.command = command;
  }
}

/** The line that follows usage problems: where to read the usage. */
export function helpHint(program: string, command: string | null): string {
  return command ? `Run \`${program} ${command} --help\` for its usage.` : `Run \`${program} --help\` for usage.`;
}

const HELP_FLAG: FlagSpec = { type: "boolean", short: "h", description: "print this help and exit" };

function flagLabel(name: string, spec: FlagSpec): string {
  return `--${name}${spec.type === "string" ? ` ${spec.value ?? "<value>"}` : ""}${spec.short ? `, -${spec.short}` : ""}`;
}

function table(rows: [string, string][]): string[] {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/** Help for the whole program: commands, global flags, examples. */
export function programHelp(program: string, about: string, commands: readonly CommandSpec[], footer: readonly string[] = []): string {
  const usage = (c: CommandSpec) =>
    [c.name, ...(c.positionals ?? []).map(positionalUsage), ...(Object.keys(c.flags ?? {}).length ? ["[flags]"] : [])].join(" ");
  return [
    about,
    "",
    `Usage: ${program} <command> [flags]`,
    "",
    "Commands:",
    ...table(commands.map((c) => [usage(c), c.summary])),
    "",
    "Flags:",
    ...table([["--help, -h", `print help (also after a command: ${program} <command> --help)`]]),
    "",
    "Examples:",
    ...commands.flatMap((c) => c.examples.slice(0, 2)).map((e) => `  ${e}`),
    ...(footer.length ? ["", ...footer] : []),
  ].join("\n");
}

/** `<name>`, or `[<name>]` for an optional positional. */
function positionalUsage(p: { name: string; optional?: boolean }): string {
  return p.optional ? `[<${p.name}>]` : `<${p.name}>`;
}

/** Help for one command: usage line, positionals, flags with their limits, examples. */
export function commandHelp(program: string, command: CommandSpec): string {
  const flags = Object.entries(command.flags ?? {});
  const limit = (f: FlagSpec) => (f.int ? ` (integer ${f.int.min}–${f.int.max})` : f.choices ? ` (one of: ${f.choices.join(", ")})` : "");
  return [
    `Usage: ${program} ${[command.name, ...(command.positionals ?? []).map(positionalUsage), ...(flags.length ? ["[flags]"] : [])].join(" ")}`,
    "",
    command.summary,
    ...(command.positionals?.length ? ["", "Arguments:", ...table(command.positionals.map((p) => [`<${p.name}>`, p.description]))] : []),
    "",
    "Flags:",
    ...table([
      ...flags.map(([name, f]): [string, string] => [flagLabel(name, f), `${f.description}${limit(f)}`]),
      [flagLabel("help", HELP_FLAG), HELP_FLAG.description],
    ]),
    ...(command.notes?.length ? ["", ...command.notes] : []),
    "",
    "Examples:",
    ...command.examples.map((e) => `  ${e}`),
  ].join("\n");
}

/** The commands of group `name` (`eval` → `eval run`, `eval report`, …); empty when `name` is no group. */
function groupOf(name: string, commands: readonly CommandSpec[]): CommandSpec[] {
  return commands.filter((c) => c.name.startsWith(`${name} `));
}

/** Help for a command group (`eval --help`): its subcommands with their summaries, and where each one's flags are. */
export function groupHelp(program: string, name: string, group: readonly CommandSpec[]): string {
  const usage = (c: CommandSpec) =>
    [c.name, ...(c.positionals ?? []).map(positionalUsage), ...(Object.keys(c.flags ?? {}).length ? ["[flags]"] : [])].join(" ");
  return [
    `Usage: ${program} ${name} <subcommand> [flags]`,
    "",
    "Subcommands:",
    ...table(group.map((c) => [usage(c), c.summary])),
    "",
    `Run \`${program} ${name} <subcommand> --help\` for a subcommand's flags.`,
    "",
    "Examples:",
    ...group.flatMap((c) => c.examples.slice(0, 1)).map((e) => `  ${e}`),
  ].join("\n");
}

/** `--limit: must be an integer between 1 and 5000, got "abc"` — or null when `raw` is fine. */
export function checkInt(flag: string, raw: string, { min, max }: { min: number; max: number }): string | null {
  const n = /^[+-]?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(n) && n >= min && n <= max ? null : `--${flag}: must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`;
}

/** The message of a node:util parseArgs error, restated with the flag's name and the help hint's wording. */
function parseArgsProblem(error: Error, known: readonly string[]): string {
  const code = (error as { code?: string }).code;
  const unknown = /Unknown option '([^']+)'/.exec(error.message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown)
    return `${unknown}: unknown flag${known.length ? ` (known: ${known.map((k) => `--${k}`).join(", ")})` : ""}`;
  const missing = /Option '(?:-\w, )?(--[\w-]+)(?: <value>)?' argument missing/.exec(error.message)?.[1];
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && missing) return `${missing}: needs a value`;
  const noValue = /Option '(?:-\w, )?(--[\w-]+)' does not take an argument/.exec(error.message)?.[1];
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && noValue) return `${noValue}: takes no value`;
  return error.message.split("\n")[0] ?? error.message;
}

/**
 * `--limit -5` → `--limit=-5` for a flag that takes a value, when the next argument is a negative
 * number (node's parseArgs otherwise calls it "ambiguous"), so the flag's own range check reports it.
 */
function joinNegativeValues(args: readonly string[], specs: Readonly<Record<string, FlagSpec>>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const name = arg.startsWith("--") && !arg.includes("=") ? arg.slice(2) : null;
    if (name !== null && specs[name]?.type === "string" && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * Parses `argv` (without node and the script): `<command> [positionals] [flags]`.
 * - `--help`/`-h` anywhere → `help` (the command's help when a known command comes first).
 * - No command, an unknown command, an unknown flag, a flag missing its value, a wrong number of
 *   positionals, a non-integer or out-of-range `int` flag, or a value outside `choices` → `usage_error`
 *   with every problem found, one line each naming the flag (or argument) and its limit.
 * Integer flags come back as numbers; others as given.
 */
export function parseCommandLine(
  argv: readonly string[],
  program: string,
  about: string,
  commands: readonly CommandSpec[],
  footer: readonly string[] = [],
): ParsedCommandLine {
  const [first, ...rest] = argv;
  const wantsHelp = (args: readonly string[]) => args.includes("--help") || args.includes("-h");
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    const named = first === "help" ? rest.join(" ") : "";
    const target = named ? commands.find((c) => c.name === named) : undefined;
    if (first === undefined)
      return { kind: "usage_error", command: null, problems: [`no command given (commands: ${commands.map((c) => c.name).join(", ")})`] };
    const group = named && !target ? groupOf(named, commands) : [];
    if (group.length) return { kind: "help", text: groupHelp(program, named, group) };
    return { kind: "help", text: target ? commandHelp(program, target) : programHelp(program, about, commands, footer) };
  }
  const command = commands.find((c) => c.name === first);
  const group = command ? [] : groupOf(first, commands);
  if (group.length) {
    const subs = group.map((c) => c.name.slice(first.length + 1)).join(", ");
    if (rest[0] === undefined || rest[0].startsWith("-")) {
      if (wantsHelp(rest)) return { kind: "help", text: groupHelp(program, first, group) };
      return { kind: "usage_error", command: null, problems: [`${first}: give a subcommand (${subs})`] };
    }
    const sub = group.find((c) => c.name === `${first} ${rest[0]}`);
    if (!sub) return { kind: "usage_error", command: null, problems: [`"${first} ${rest[0]}": unknown subcommand (${first}: ${subs})`] };
    return parseCommandLine([sub.name, ...rest.slice(1)], program, about, commands, footer);
  }
  if (!command) {
    if (first.startsWith("-")) {
      if (wantsHelp(rest)) return { kind: "help", text: programHelp(program, about, commands, footer) };
      return { kind: "usage_error", command: null, problems: [`${first}: a command comes first (commands: ${commands.map((c) => c.name).join(", ")})`] };
    }
    return { kind: "usage_error", command: null, problems: [`"${first}": unknown command (commands: ${commands.map((c) => c.name).join(", ")})`] };
  }
  if (wantsHelp(rest)) return { kind: "help", text: commandHelp(program, command) };

  const specs = command.flags ?? {};
  const options = Object.fromEntries(Object.entries(specs).map(([name, f]) => [name, { type: f.type, ...(f.short ? { short: f.short } : {}) }]));
  let parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: joinNegativeValues(rest, specs), options, allowPositionals: true, strict: true });
  } catch (error) {
    return { kind: "usage_error", command: command.name, problems: [parseArgsProblem(error as Error, Object.keys(specs))] };
  }

  const problems: string[] = [];
  const wanted = command.positionals ?? [];
  const required = wanted.filter((p) => !p.optional);
  if (parsed.positionals.length < required.length) {
    for (const p of required.slice(parsed.positionals.length)) problems.push(`<${p.name}>: missing (${p.description})`);
  } else if (parsed.positionals.length > wanted.length) {
    const extra = parsed.positionals.slice(wanted.length).map((p) => JSON.stringify(p));
    problems.push(
      `unexpected argument${extra.length > 1 ? "s" : ""} ${extra.join(" ")} (${command.name} takes ${wanted.length ? wanted.map((p) => `<${p.name}>`).join(" ") : "no arguments"})`,
    );
  }
  const values: FlagValues = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = parsed.values[name];
    if (raw === undefined) continue;
    if (Array.isArray(raw)) continue; // no multiple flags are declared
    if (typeof raw === "boolean") {
      values[name] = raw;
      continue;
    }
    if (spec.int) {
      const problem = checkInt(name, raw, spec.int);
      if (problem) problems.push(problem);
      else values[name] = Number(raw);
    } else if (spec.choices && !spec.choices.includes(raw)) {
      problems.push(`--${name}: must be one of ${spec.choices.join(", ")}, got ${JSON.stringify(raw)}`);
    } else if (spec.check?.(raw)) {
      problems.push(spec.check(raw)!);
    } else {
      values[name] = raw;
    }
  }
  if (problems.length) return { kind: "usage_error", command: command.name, problems };
  return { kind: "run", command: command.name, values, positionals: parsed.positionals };
}

/** A zod-style issue, as thrown locally or carried in a tRPC BAD_REQUEST message. */
export interface InputIssue {
  path: readonly PropertyKey[];
  message: string;
  code?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
}

/** How a field of the API input is named on the command line (`--limit`, `<taskId>`) and the raw value given for it, if any. */
export type FieldLabel = { label: string; given?: unknown } | null;

/** zod's default wording ("Too big: expected string to have <=100 characters") restated as a limit; other messages as they are. */
function limitMessage(issue: InputIssue): string {
  if (!/^(Too big|Too small)/.test(issue.message)) return issue.message;
  const unit = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
  if (issue.code === "too_big" && issue.maximum !== undefined) return `at most ${issue.maximum}${unit}`;
  if (issue.code === "too_small" && issue.minimum !== undefined)
    return issue.origin === "string" && Number(issue.minimum) === 1 ? "must not be empty" : `at least ${issue.minimum}${unit}`;
  return issue.message;
}

/** `, got "abc"` for a short value, `, got 20001 characters` for a long string, "" when unknown. */
function gotSuffix(value: unknown): string {
  if (value === undefined || typeof value === "boolean") return "";
  return typeof value === "string" && value.length > 60 ? `, got ${value.length} characters` : `, got ${JSON.stringify(value)}`;
}

/**
 * One line per issue, naming the flag or argument (via `labelOf(path)`, e.g. `demo.limit` →
 * `--limit`) and the limit: `--step-budget: at most 100000, got 0`. A message that already starts
 * with the field's name has that prefix replaced by the label; zod's default "Too big/Too small"
 * wording becomes "at most N characters" / "at least N".
 */
export function formatIssues(issues: readonly InputIssue[], labelOf: (path: string) => FieldLabel): string[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    const field = labelOf(path);
    const message = limitMessage(issue).replace(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\s*`), "");
    return `${field?.label ?? (path || "input")}: ${message}${gotSuffix(field?.given)}`;
  });
}

/**
 * A BAD_REQUEST message of the API of the form `<field>: <problem>` (AppError BAD_INPUT, e.g.
 * `profile: no agent profile named "x"`) with the field restated as its flag; null when the message
 * names no known field.
 */
export function relabelFieldMessage(message: string, labelOf: (path: string) => FieldLabel): string | null {
  const m = /^([\w.]+):\s*(.*)$/s.exec(message);
  const field = m ? labelOf(m[1]!) : null;
  return m && field ? `${field.label}: ${m[2]}` : null;
}

/** The zod issues inside a tRPC error message (zod 4 serialises them as a JSON array), or null. */
export function issuesFromMessage(message: string): InputIssue[] | null {
  if (!message.trimStart().startsWith("[")) return null;
  try {
    const parsed: unknown = JSON.parse(message);
    if (!Array.isArray(parsed) || parsed.length === 0) return null;
    const issues = parsed.filter(
      (i): i is InputIssue => !!i && typeof i === "object" && Array.isArray((i as InputIssue).path) && typeof (i as InputIssue).message === "string",
    );
    return issues.length === parsed.length ? issues : null;
  } catch {
    return null;
  }
}
