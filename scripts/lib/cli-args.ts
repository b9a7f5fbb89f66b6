/**
 * The one command-line parser of scripts/: command and flag specs, `--help` text, and problems
 * reported one line each, naming the flag and its limit. `parseCommandLine` parses a program of
 * several commands (scripts/cli.ts, scripts/migrate.ts); `parseScriptLine` a script that is one
 * command (the benchmarks, chaos, start, test, the checks). Built on node:util `parseArgs` (strict
 * mode: unknown flags and missing values are errors). Pure, no I/O: the caller decides where text
 * goes and which exit code follows (scripts/lib/script-args.ts does it for the single-command scripts).
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
  /** A decimal number within [min, max] (e.g. a share 0–1); comes back as a number. */
  number?: { min: number; max: number };
  /**
   * A comma-separated list (`--sizes 100,1000`); each item is checked against `int` or `choices`,
   * and the flag may be given more than once (the items add up). Comes back as an array.
   */
  list?: boolean;
  /** Checks a string flag's value: a usage line naming the flag, or null when it is fine (so it is reported with the other problems). */
  check?: (raw: string) => string | null;
  short?: string;
  /** The value when the flag is absent (shown in help). A script's boolean flag is false when absent (parseScriptLine). */
  default?: string | number | boolean | readonly (string | number)[];
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

/** Parsed flag values: strings, booleans, numbers for `int`/`number` flags, arrays for `list` flags; absent flags are undefined. */
export type FlagValues = Record<string, string | boolean | number | readonly (string | number)[] | undefined>;

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
  return [
    `Usage: ${program} ${[command.name, ...(command.positionals ?? []).map(positionalUsage), ...(flags.length ? ["[flags]"] : [])].join(" ")}`,
    "",
    command.summary,
    ...(command.positionals?.length ? ["", "Arguments:", ...table(command.positionals.map((p) => [`<${p.name}>`, p.description]))] : []),
    "",
    "Flags:",
    ...flagTable(command.flags ?? {}),
    ...(command.notes?.length ? ["", ...command.notes] : []),
    "",
    "Examples:",
    ...command.examples.map((e) => `  ${e}`),
  ].join("\n");
}

/** `(integer 1–5000, default 50)`: a flag's limit and default as help shows them; "" when it has neither. */
function limitText(f: FlagSpec): string {
  const each = f.list ? "comma-separated, each " : "";
  const limit = f.int
    ? `${each}integer ${f.int.min}–${f.int.max}`
    : f.number
      ? `number ${f.number.min}–${f.number.max}`
      : f.choices
        ? `${each}one of: ${f.choices.join(", ")}`
        : f.list
          ? "comma-separated"
          : "";
  const fallback = f.default === undefined || f.default === false ? "" : `default ${Array.isArray(f.default) ? f.default.join(",") : String(f.default)}`;
  const parts = [limit, fallback].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** The flag rows of a help text, `--help` last. */
function flagTable(specs: Readonly<Record<string, FlagSpec>>): string[] {
  return table([
    ...Object.entries(specs).map(([name, f]): [string, string] => [flagLabel(name, f), `${f.description}${limitText(f)}`]),
    [flagLabel("help", HELP_FLAG), HELP_FLAG.description],
  ]);
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

  const parsed = parseFlags(rest, command.flags ?? {});
  if ("problem" in parsed) return { kind: "usage_error", command: command.name, problems: [parsed.problem] };
  const { values, positionals } = parsed;
  const problems = [...positionalProblems(command.name, command.positionals ?? [], positionals), ...parsed.problems];
  if (problems.length) return { kind: "usage_error", command: command.name, problems };
  return { kind: "run", command: command.name, values, positionals };
}

/** A missing required positional or one too many, one line each; `name` is the command's name ("" for a script). */
function positionalProblems(name: string, wanted: NonNullable<CommandSpec["positionals"]>, given: readonly string[]): string[] {
  const required = wanted.filter((p) => !p.optional);
  if (given.length < required.length) return required.slice(given.length).map((p) => `<${p.name}>: missing (${p.description})`);
  if (given.length <= wanted.length) return [];
  const extra = given.slice(wanted.length).map((p) => JSON.stringify(p));
  const takes = wanted.length ? wanted.map((p) => `<${p.name}>`).join(" ") : "no arguments";
  return [`unexpected argument${extra.length > 1 ? "s" : ""} ${extra.join(" ")} (${name ? `${name} takes` : "it takes"} ${takes})`];
}

/** One item of a flag's value checked against its `int`, `number` or `choices` limit: the value, or the problem naming the flag. */
function checkValue(name: string, spec: FlagSpec, raw: string): { value: string | number } | { problem: string } {
  if (spec.int) {
    const problem = checkInt(name, raw, spec.int);
    return problem ? { problem: `${problem}${spec.list ? " (each item of the comma-separated list)" : ""}` } : { value: Number(raw) };
  }
  if (spec.number) {
    const n = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(raw.trim()) ? Number(raw) : Number.NaN;
    return Number.isFinite(n) && n >= spec.number.min && n <= spec.number.max
      ? { value: n }
      : { problem: `--${name}: must be a number between ${spec.number.min} and ${spec.number.max}, got ${JSON.stringify(raw)}` };
  }
  if (spec.choices && !spec.choices.includes(raw))
    return {
      problem: `--${name}: must be one of ${spec.choices.join(", ")}, got ${JSON.stringify(raw)}${spec.list ? " (each item of the comma-separated list)" : ""}`,
    };
  return { value: raw };
}

/**
 * Parses flags and positionals against `specs` (node:util parseArgs, strict), checks each value
 * (`int`, `number`, `choices`, `list`, `check`) and fills in `default`s (an absent flag without one
 * stays undefined). A parseArgs error (unknown flag, missing value) is `{problem}`; value problems
 * are collected, one line each.
 */
function parseFlags(
  args: readonly string[],
  specs: Readonly<Record<string, FlagSpec>>,
): { problem: string } | { values: FlagValues; positionals: string[]; problems: string[] } {
  const options = Object.fromEntries(
    Object.entries(specs).map(([name, f]) => [name, { type: f.type, ...(f.short ? { short: f.short } : {}), ...(f.list ? { multiple: true } : {}) }]),
  );
  let parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: joinNegativeValues(args, specs), options, allowPositionals: true, strict: true });
  } catch (error) {
    return { problem: parseArgsProblem(error as Error, Object.keys(specs)) };
  }
  const problems: string[] = [];
  const values: FlagValues = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = parsed.values[name];
    if (raw === undefined) {
      if (spec.default !== undefined) values[name] = spec.default;
      continue;
    }
    if (typeof raw === "boolean") {
      values[name] = raw;
      continue;
    }
    if (spec.list) {
      const items = (Array.isArray(raw) ? raw : [raw]).flatMap((r) => String(r).split(",")).map((i) => i.trim());
      if (!items.some(Boolean)) {
        problems.push(`--${name}: needs at least one item`);
        continue;
      }
      const checked = items.map((item) =>
        item ? checkValue(name, spec, item) : { problem: `--${name}: an empty item in ${JSON.stringify(items.join(","))}` },
      );
      const bad = checked.find((c) => "problem" in c);
      if (bad && "problem" in bad) problems.push(bad.problem);
      else values[name] = checked.map((c) => ("value" in c ? c.value : ""));
      continue;
    }
    if (Array.isArray(raw)) continue; // only list flags are declared `multiple`
    const checked = checkValue(name, spec, raw);
    if ("problem" in checked) problems.push(checked.problem);
    else if (spec.check?.(raw)) problems.push(spec.check(raw)!);
    else values[name] = checked.value;
  }
  return { values, positionals: parsed.positionals, problems };
}

/** Flag specs by name, as a script declares them. */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** The parsed value of one flag: boolean, number (`int`, `number`), array (`list`) or string. */
export type FlagValue<S extends FlagSpec> = S["type"] extends "boolean"
  ? boolean
  : S extends { list: true }
    ? S extends { int: object }
      ? number[]
      : string[]
    : S extends { int: object } | { number: object }
      ? number
      : string;

/** A script's parsed flags: booleans always (false when absent), others undefined when absent and without a `default`. */
export type ScriptValues<F extends FlagSpecs> = {
  -readonly [K in keyof F]: F[K]["type"] extends "boolean" ? boolean : F[K] extends { default: unknown } ? FlagValue<F[K]> : FlagValue<F[K]> | undefined;
};

/**
 * A script that is one command (a benchmark, `npm start`, `npm test`): how it is called, what it
 * does, its flags (each with its limit and default), extra help lines, examples, and `check`, the
 * rules between flags (a problem line naming the flags, or null) that are reported with the others.
 */
export interface ScriptSpec<F extends FlagSpecs = FlagSpecs> {
  /** How it is invoked, e.g. "npm run bench:ui --" (help and problems say `<program> --help`). */
  program: string;
  summary: string;
  flags: F;
  positionals?: CommandSpec["positionals"];
  notes?: readonly string[];
  examples: readonly string[];
  check?: (values: ScriptValues<F>) => readonly (string | null)[];
}

/** What a script's command line asks for: its help, its values, or usage problems (one line each). */
export type ParsedScriptLine<F extends FlagSpecs> =
  { kind: "help"; text: string } | { kind: "run"; values: ScriptValues<F>; positionals: string[] } | { kind: "usage_error"; problems: string[] };

/** A script's `--help`: usage line, summary, arguments, flags with their limits and defaults, notes, examples. */
export function scriptHelp(spec: ScriptSpec<FlagSpecs>): string {
  const positionals = spec.positionals ?? [];
  return [
    `Usage: ${[spec.program, ...positionals.map(positionalUsage), "[flags]"].join(" ")}`,
    "",
    spec.summary,
    ...(positionals.length ? ["", "Arguments:", ...table(positionals.map((p) => [`<${p.name}>`, p.description]))] : []),
    "",
    "Flags:",
    ...flagTable(spec.flags),
    ...(spec.notes?.length ? ["", ...spec.notes] : []),
    ...(spec.examples.length ? ["", "Examples:", ...spec.examples.map((e) => `  ${e}`)] : []),
  ].join("\n");
}

/**
 * Parses the command line of a one-command script (`argv` without node and the script):
 * `--help`/`-h` anywhere → `help`; an unknown flag, a flag missing its value, a value outside its
 * limit (`int`, `number`, `choices`, each `list` item), a failed `check` of a flag or of the spec,
 * or a wrong number of positionals → `usage_error` with every problem, one line each naming the
 * flag and its limit. Otherwise the values, typed by the spec, with defaults filled in.
 */
export function parseScriptLine<F extends FlagSpecs>(argv: readonly string[], spec: ScriptSpec<F>): ParsedScriptLine<F> {
  if (argv.includes("--help") || argv.includes("-h")) return { kind: "help", text: scriptHelp(spec as ScriptSpec<FlagSpecs>) };
  const parsed = parseFlags(argv, spec.flags);
  if ("problem" in parsed) return { kind: "usage_error", problems: [parsed.problem] };
  for (const [name, f] of Object.entries(spec.flags)) if (f.type === "boolean" && parsed.values[name] === undefined) parsed.values[name] = false;
  const problems = [...positionalProblems("", spec.positionals ?? [], parsed.positionals), ...parsed.problems];
  const values = parsed.values as ScriptValues<F>;
  if (!problems.length && spec.check) problems.push(...spec.check(values).filter((p): p is string => p !== null));
  if (problems.length) return { kind: "usage_error", problems };
  return { kind: "run", values, positionals: parsed.positionals };
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
