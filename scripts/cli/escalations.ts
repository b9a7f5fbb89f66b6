/**
 * `escalations` (the inbox: open ones first, overdue marked) and `decide <escalationId> <decision>`
 * (applied at once, once; `--take-over` moves another handler's claim to you). The decide input is
 * checked against the API's own schema (server/domain/decide-escalation.ts) before it is sent.
 */
import { dueWords } from "../../lib/contracts/escalation-timeout.ts";
import { isoUtc } from "../../lib/contracts/dates.ts";
import { decideEscalationInputSchema } from "../../server/domain/decide-escalation.ts";
import { formatIssues, UsageError, type FlagValues } from "../lib/cli-args.ts";
import { terminalSafe } from "../lib/cli-text.ts";
import { api, PROGRAM } from "./client.ts";
import { KEY_FLAG, keyOf, usdValue, type CliCommand } from "./command.ts";
import { labeller } from "./labels.ts";

/** The decide input from the arguments, checked against the API's schema. @throws UsageError naming each bad flag. */
function decideInput(values: FlagValues, positionals: readonly string[]) {
  const str = (name: string) => (typeof values[name] === "string" ? values[name] : undefined);
  const num = (name: string) => (typeof values[name] === "number" ? values[name] : undefined);
  const usd = str("extra-usd");
  const budgetIncrease = {
    ...(num("extra-steps") !== undefined ? { steps: num("extra-steps") } : {}),
    ...(num("extra-tokens") !== undefined ? { tokens: num("extra-tokens") } : {}),
    ...(usd !== undefined ? { usd: usdValue(usd) } : {}),
  };
  const input = {
    escalationId: positionals[0],
    decision: positionals[1],
    ...(str("guidance") !== undefined ? { guidance: str("guidance") } : {}),
    ...(str("reason") !== undefined ? { deadEndReason: str("reason") } : {}),
    ...(Object.keys(budgetIncrease).length ? { budgetIncrease } : {}),
    ...keyOf(values),
  };
  const parsed = decideEscalationInputSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(formatIssues(parsed.error.issues, labeller(values, positionals)), "decide");
  return parsed.data;
}

/**
 * `decide --take-over`: who holds the escalation's claim now, as `takeOverFrom` (the API moves the
 * claim only if that handler still holds it, so a claim taken in between is refused, not overridden);
 * nothing when it is unclaimed. Says on stderr whom it takes it over from.
 */
async function takeOverFrom(escalationId: string): Promise<{ takeOverFrom?: string }> {
  const e = await api.escalation.get.query({ escalationId });
  if (!e.claimedBy) return {};
  process.stderr.write(`taking ${escalationId} over from ${terminalSafe(e.claimedBy)}${e.claimedAt ? ` (claimed since ${e.claimedAt.toISOString()})` : ""}\n`);
  return { takeOverFrom: e.claimedBy };
}

export const ESCALATIONS: CliCommand = {
  spec: {
    name: "escalations",
    summary: "List escalations: open ones first (overdue marked), then decided ones.",
    flags: {
      status: {
        type: "string",
        value: "<open|decided>",
        description: "only open or only decided ones (the inbox's Open / Decided tabs; closed is the same as decided)",
        choices: ["open", "decided", "closed"],
      },
    },
    examples: [`${PROGRAM} escalations --status open`],
  },
  async run(values) {
    const rows = await api.escalation.list.query(values.status ? { status: values.status as "open" | "decided" | "closed" } : {});
    for (const e of rows)
      process.stderr.write(
        `${e.id}  ${e.status.padEnd(8)} ${terminalSafe(e.reason).padEnd(17)} ${e.taskId}  ${e.overdue ? "OVERDUE · " : ""}${dueWords(e, isoUtc)}${e.phase === "reminders_over" ? " · reminders over" : ""}\n`,
      );
    return {
      escalations: rows.map((e) => ({
        id: e.id,
        taskId: e.taskId,
        reason: e.reason,
        status: e.status,
        dueAt: e.dueAt.toISOString(),
        overdue: e.overdue,
        phase: e.phase,
        nextReminderAt: e.nextReminderAt?.toISOString() ?? null,
      })),
    };
  },
};

export const DECIDE: CliCommand = {
  spec: {
    name: "decide",
    summary: "Decide an escalation: resume | approve | reject | dead_end | cancel (applied at once, once).",
    positionals: [
      { name: "escalationId", description: "the escalation's id, as printed by escalations or status" },
      { name: "decision", description: "resume, approve, reject, dead_end or cancel" },
    ],
    flags: {
      guidance: { type: "string", value: "<text>", description: "for the resumed run (resume, approve, reject)" },
      "extra-steps": { type: "string", value: "<n>", description: "raise the step budget on resume", int: { min: 1, max: 100_000 } },
      "extra-tokens": { type: "string", value: "<n>", description: "raise the token budget on resume", int: { min: 1, max: 1_000_000_000 } },
      "extra-usd": { type: "string", value: "<usd>", description: "raise the dollar budget on resume, e.g. 0.50" },
      reason: { type: "string", value: "<text>", description: "why it is a dead end (required with dead_end)" },
      "take-over": {
        type: "boolean",
        description: 'decide an escalation another handler has claimed, taking the claim over from them (the inbox\'s "Take over from …")',
      },
      ...KEY_FLAG,
    },
    examples: [
      `${PROGRAM} decide esc_01jx… resume --guidance "read the README once, then finish" --extra-steps 20`,
      `${PROGRAM} decide esc_01jx… dead_end --reason "the data is not there"`,
    ],
  },
  async run(values, positionals) {
    const input = decideInput(values, positionals);
    return api.escalation.decide.mutate(values["take-over"] === true ? { ...input, ...(await takeOverFrom(input.escalationId)) } : input);
  },
};
