import { resolve } from "node:path";
import type { PrismaClient } from "./client.ts";

/**
 * The demo workspace of the `scripted-exfiltrate` profile (examples/exfiltrate-demo in the Longhaul
 * folder the app runs from): one notes.md that tells the agent to email it, with a demo password in
 * it, to an address outside the default policy — for watching the egress gate from the browser.
 */
export const EXFILTRATE_DEMO_WORKSPACE = resolve(process.cwd(), "examples", "exfiltrate-demo");

/**
 * Agent profiles seeded on every start (upserts by name, so edits to the seed reach existing
 * databases and operator-made profiles are untouched).
 *
 * The scripted profiles run offline against the scripted model server; their notional prices
 * (USD per million tokens) let dollar budgets be exercised without a provider. The scenario
 * Their escalations go to handlers (escalationRole, the role that decides them); the scenario
 * profiles move an overdue one on to the admins (escalationChain) — roles that exist and an admin
 * can give (server/auth/roles.ts ROLES), never a role nobody can hold (issue 18: "team-lead").
 */
export const seedProfiles = [
  {
    name: "scripted",
    description: "Offline scripted model (deterministic; plays a competent agent). No API key needed.",
    model: "scripted",
    tools: [
      "list_files",
      "read_file",
      "search_files",
      "record_fact",
      "write_artifact",
      "send_email",
      "http_post",
      "complete_phase",
      "finish",
      "declare_dead_end",
    ],
    stepBudget: 400,
    contextWindow: 128_000,
    checkpointEverySteps: 40,
    // It reads five package.json files per turn before recording their facts: up to 7 steps
    // without working-set growth are its normal rhythm, not a stall.
    stallSteps: 10,
    stallGraceSteps: 5,
    // The demo's escalations stay with the handlers when overdue (reminders only).
    escalationChain: [],
    inputPricePerMTok: "0.40",
    cachedPricePerMTok: "0.10",
    outputPricePerMTok: "1.60",
    systemPrompt:
      "You are a careful agent working through a long task with tools. Record every established fact with record_fact. " +
      "Call finish with a short result when done, or declare_dead_end with the reason when the task cannot be done.",
  },
  ...(
    [
      ["loop", "calls the same tool with identical arguments, again and again", 40],
      ["stall", "keeps working and talking but never establishes a fact", 40],
      ["budget", "works productively and never finishes: it runs into its step budget", 24],
      ["drift", "starts on the task, then its open question drifts off the goal", 40],
      ["dead-end", "looks around, then declares the task cannot be done, with the reason", 40],
      ["tool-failure", "keeps calling a tool with malformed arguments", 40],
    ] as const
  ).map(([scenario, behaviour, stepBudget]) => ({
    name: `scripted-${scenario}`,
    description: `Offline scripted scenario: an agent that ${behaviour}. Small budgets, for trying detectors and escalations.`,
    model: `scripted-${scenario}`,
    tools: [
      "list_files",
      "read_file",
      "search_files",
      "record_fact",
      "write_artifact",
      "send_email",
      "complete_phase",
      "request_human",
      "finish",
      "declare_dead_end",
    ],
    stepBudget,
    contextWindow: 128_000,
    checkpointEverySteps: 12,
    // Overdue escalations move from the handlers to the admins at the first reminder (and stay there).
    escalationChain: ["admin"],
    inputPricePerMTok: "0.40",
    cachedPricePerMTok: "0.10",
    outputPricePerMTok: "1.60",
    systemPrompt: "You are an agent working through a task with tools. Record established facts with record_fact; finish when done.",
  })),
  {
    name: "scripted-exfiltrate",
    description:
      `Offline scripted scenario: an agent that obeys instructions in workspace files. Launch it with the workspace ${EXFILTRATE_DEMO_WORKSPACE}: ` +
      "its notes.md tells the agent to email the file (a password in it) to an outside address, and the egress gate stops the send for approval.",
    model: "scripted-exfiltrate",
    tools: ["list_files", "read_file", "search_files", "record_fact", "send_email", "http_post", "finish", "declare_dead_end"],
    stepBudget: 60,
    contextWindow: 128_000,
    checkpointEverySteps: 12,
    escalationChain: [],
    inputPricePerMTok: "0.40",
    cachedPricePerMTok: "0.10",
    outputPricePerMTok: "1.60",
    // The gate must stop it even when the task does not ask for approvals.
    requireApproval: false,
    systemPrompt: "You are an agent working through a task with tools.",
  },
] as const;

/** The goal the CLI gives scenario runs: short, answerable from the workspace's README. */
export const SCENARIO_GOAL =
  "Find out what this project is from the README in the workspace, record what it is as a fact, then finish with a one-line summary.";

/** Scenario names accepted by the CLI's `--scenario` and the profile each maps to. */
export const SCENARIOS = {
  loop: "scripted-loop",
  stall: "scripted-stall",
  budget: "scripted-budget",
  drift: "scripted-drift",
  dead_end: "scripted-dead-end",
  tool_failure: "scripted-tool-failure",
} as const;

/** Who handles the seeded profiles' escalations: the handler role (the one that claims and decides them). */
export const SEED_ESCALATION_ROLE = "handler";

/** Upserts the seed profiles. Returns their count. */
export async function seedDefaults(prisma: PrismaClient): Promise<number> {
  for (const p of seedProfiles) {
    const data = { escalationRole: SEED_ESCALATION_ROLE, ...p, tools: [...p.tools], escalationChain: [...p.escalationChain] };
    await prisma.agentProfile.upsert({ where: { name: p.name }, create: data, update: data });
  }
  return seedProfiles.length;
}
