/**
 * Server messages in people's words: the API answers a refused input as "<field path>: <problem>"
 * (one per field, joined with "; ": server/api/trpc.ts readableIssues, AppError BAD_INPUT), which is
 * right for a script and schema-speak on a page ("spec.transport.command: Invalid input: expected
 * string, received undefined"). A form names its fields once, path → label, and every error line of
 * the form goes through {@link labelledMessage}: the one mechanism the pages use (the CLI has its own
 * labeller, scripts/cli/labels.ts, naming flags). Pure, no React.
 */

/**
 * A form's field labels by path: exact ("expiresInDays"), or with `*` for any one segment
 * ("spec.transport.args.*"). A label of `null` drops the field's name (the message already says
 * what it is about, e.g. "userId: you cannot deactivate yourself" → "You cannot deactivate yourself").
 */
export type FieldLabels = Readonly<Record<string, string | null>>;

/** zod's default wordings, as the server relays them, restated for people. */
const ZOD_WORDS: readonly [RegExp, (m: RegExpExecArray) => string][] = [
  [/^Invalid input: expected \w+, received undefined$/, () => "required"],
  [/^Invalid input: expected (?:string|nonoptional)$/, () => "required"],
  [/^Invalid input: expected string, received \w+$/, () => "must be text"],
  [/^Invalid input: expected (?:number|int), received \w+$/, () => "must be a number"],
  [/^Invalid input: expected boolean, received \w+$/, () => "must be true or false"],
  [/^Invalid input: expected (?:array|tuple), received \w+$/, () => "must be a list"],
  [/^Invalid input: expected (?:object|record), received \w+$/, () => "must be an object"],
  [/^Invalid option: expected one of (.+)$/, (m) => `must be one of ${m[1]!.replaceAll('"', "").replaceAll("|", ", ")}`],
  [/^Invalid discriminator value\. Expected (.+)$/, (m) => `must be one of ${m[1]!.replace(/['"]/g, "").replace(/ ?\| ?/g, ", ")}`],
  [/^Invalid input: expected "([^"]+)"$/, (m) => `must be "${m[1]}"`],
  [/^Unrecognized keys?: (.+)$/, (m) => `unknown field${m[1]!.includes(",") ? "s" : ""} ${m[1]!.replaceAll('"', "")}`],
  [/^Too small: expected number to be >=?(-?[\d.]+)$/, (m) => `at least ${m[1]}`],
  [/^Too big: expected number to be <=?(-?[\d.]+)$/, (m) => `at most ${m[1]}`],
  [/^Too small: expected string to have >=?(\d+) characters?$/, (m) => (m[1] === "1" ? "must not be empty" : `at least ${m[1]} characters`)],
  [/^Too big: expected string to have <=?(\d+) characters?$/, (m) => `at most ${m[1]} characters`],
];

/** zod's default wording of one problem restated ("Invalid input: expected string, received undefined" → "required"); other words as they are. */
export function plainProblem(problem: string): string {
  for (const [re, say] of ZOD_WORDS) {
    const m = re.exec(problem.trim());
    if (m) return say(m);
  }
  return problem;
}

function labelOf(path: string, labels: FieldLabels): string | null | undefined {
  if (path in labels) return labels[path];
  const parts = path.split(".");
  for (const [pattern, label] of Object.entries(labels)) {
    const p = pattern.split(".");
    if (p.length === parts.length && p.every((seg, i) => seg === "*" || seg === parts[i])) return label;
  }
  return undefined;
}

const capitalise = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/**
 * `message` with each "<path>: <problem>" part named by the form's label ("Command: required"), or
 * without the name when the label is null, zod's default wording made plain ({@link plainProblem});
 * parts naming no known path keep their words (plain ones) — better a path than a guess. Parts are
 * split at "; " before a path, and a message of several lines (a profile's problems) line by line. Pure.
 */
export function labelledMessage(message: string, labels: FieldLabels): string {
  const lines = message.split("\n");
  if (lines.length > 1) return lines.map((line) => labelledMessage(line, labels)).join("\n");
  const parts = message.split(/; (?=[\w.[\]]+: )/);
  return parts
    .map((part) => {
      const m = /^([\w.[\]]+): ([\s\S]*)$/.exec(part);
      if (!m) return part;
      const [, path, problem] = m;
      const label = labelOf(path!.replace(/\[(\d+)\]/g, ".$1"), labels);
      const plain = plainProblem(problem!);
      if (label === undefined) return `${path}: ${plain}`;
      return label === null ? capitalise(plain) : `${label}: ${plain}`;
    })
    .join("; ");
}
