/**
 * The command families whose bodies live in their own modules (costs, profiles, eval, templates,
 * mcp: scripts/lib/cli-*.ts), as `CliCommand`s: each family's specs paired with its runner, and
 * the family's own outcomes turned into the CLI's (a failed eval gate → exit 8, a refused profile
 * document → exit 1, an eval export → raw stdout).
 */
import { EXIT_CODES, exitCodeForTaskStatus } from "../lib/cli-exit.ts";
import { COSTS_COMMAND, runCosts } from "../lib/cli-costs.ts";
import { EVAL_COMMANDS, runEval } from "../lib/cli-eval.ts";
import { MCP_COMMANDS, runMcp } from "../lib/cli-mcp.ts";
import { PROFILES_COMMANDS, PROFILES_EXIT, runProfileSmoke, runProfiles } from "../lib/cli-profiles.ts";
import { runTemplates, TEMPLATES_COMMANDS } from "../lib/cli-templates.ts";
import { api, baseUrl, poll, waitFor } from "./client.ts";
import { EXIT, RAW, type CliCommand } from "./command.ts";

export const COSTS: CliCommand = { spec: COSTS_COMMAND, run: (values) => runCosts(api, values) };

export const PROFILES: readonly CliCommand[] = PROFILES_COMMANDS.map((spec) => ({
  spec,
  async run(values, positionals) {
    if (spec.name === "profiles smoke") {
      const out = await runProfileSmoke(api, values, positionals, waitFor, (taskId) => `${baseUrl}/tasks/${taskId}`);
      return values.wait ? { ...out, [EXIT]: exitCodeForTaskStatus(out.status) } : out;
    }
    const out = await runProfiles(api, spec.name, values, positionals);
    return out && typeof out === "object" && PROFILES_EXIT in out ? { ...out, [EXIT]: EXIT_CODES.commandFailed } : out;
  },
}));

export const EVALS: readonly CliCommand[] = EVAL_COMMANDS.map((spec) => ({
  spec,
  async run(values, positionals) {
    const { out, gateFailed, raw } = await runEval(api, spec.name, values, positionals, poll);
    if (raw !== undefined) return { [RAW]: raw };
    return gateFailed ? { ...(out as object), [EXIT]: EXIT_CODES.gateFailed } : out;
  },
}));

export const TEMPLATES: readonly CliCommand[] = TEMPLATES_COMMANDS.map((spec) => ({
  spec,
  run: (values, positionals) => runTemplates(api, spec.name, values, positionals),
}));

export const MCP: readonly CliCommand[] = MCP_COMMANDS.map((spec) => ({ spec, run: (values, positionals) => runMcp(api, values, positionals) }));
