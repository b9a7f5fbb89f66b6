import type { PrismaClient } from "./client.ts";

/**
 * Agent profiles seeded on every start (upserts by name, so edits to the seed reach existing
 * databases and operator-made profiles are untouched).
 *
 * The scripted profiles run offline against the scripted model server; their notional prices
 * (USD per million tokens) let dollar budgets be exercised without a provider.
 */
export const seedProfiles = [
  {
    name: "scripted",
    description: "Offline scripted model (deterministic; plays a competent agent). No API key needed.",
    model: "scripted",
    tools: ["list_files", "read_file", "search_files", "record_fact", "write_artifact", "send_email", "complete_phase", "finish", "declare_dead_end"],
    stepBudget: 400,
    contextWindow: 128_000,
    inputPricePerMTok: "0.40",
    cachedPricePerMTok: "0.10",
    outputPricePerMTok: "1.60",
    systemPrompt:
      "You are a careful agent working through a long task with tools. Record every established fact with record_fact. " +
      "Call finish with a short result when done, or declare_dead_end with the reason when the task cannot be done.",
  },
] as const;

/** Upserts the seed profiles. Returns their count. */
export async function seedDefaults(prisma: PrismaClient): Promise<number> {
  for (const p of seedProfiles) {
    const data = { ...p, tools: [...p.tools] };
    await prisma.agentProfile.upsert({ where: { name: p.name }, create: data, update: data });
  }
  return seedProfiles.length;
}
