import { parse as parseYaml } from "yaml";
import { AppError } from "../errors.ts";
import { evalSuiteFileSchema, type EvalSuiteFile } from "./eval-suite.ts";

/**
 * Parses a suite file's text — YAML (the `yaml` package, YAML 1.2; JSON is YAML too) — and validates
 * it with evalSuiteFileSchema. `source` names the file in messages.
 * @throws AppError BAD_INPUT naming the file, and the field and the rule for a schema error.
 */
export function parseEvalSuite({ text, source }: { text: string; source: string }): EvalSuiteFile {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new AppError("BAD_INPUT", `${source}: not valid YAML or JSON: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  const r = evalSuiteFileSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new AppError("BAD_INPUT", `${source}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return r.data;
}
