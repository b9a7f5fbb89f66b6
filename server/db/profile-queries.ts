import { AppError } from "../errors.ts";
import { refuseIfCodeManaged } from "./code-managed.ts";
import type { PrismaClient } from "./client.ts";

/**
 * Agent profiles by name, with the defaults a launch takes from them: `stepBudget`, `tokenBudget`
 * (null = no token ceiling), `costBudgetUsd` (USD as a number; null = no dollar ceiling) and
 * `requireApproval`; and the profile's part of the egress policy: `egressEmailAllow` (recipient
 * domains and addresses added to the deployment's), `egressHttpAllow` (origins), `egressOnBreach`
 * (null = the deployment's setting; "refuse" / "escalate"); `version` (the current one) and
 * `archivedAt` (non-null: no new launch may use it).
 */
export async function listProfiles({ prisma }: { prisma: PrismaClient }) {
  const profiles = await prisma.agentProfile.findMany({
    orderBy: { name: "asc" },
    select: {
      id: true,
      name: true,
      description: true,
      model: true,
      provider: true,
      baseUrl: true,
      version: true,
      archivedAt: true,
      tools: true,
      stepBudget: true,
      tokenBudget: true,
      costBudgetUsd: true,
      requireApproval: true,
      egressEmailAllow: true,
      egressHttpAllow: true,
      egressOnBreach: true,
    },
  });
  return profiles.map((p) => ({ ...p, costBudgetUsd: p.costBudgetUsd === null ? null : Number(p.costBudgetUsd) }));
}

/**
 * Replaces profile `name`'s egress fields (already validated and normalised by the caller:
 * lib/contracts/egress.ts parseEmailAllowEntry / parseHttpAllowEntry). Returns the fields
 * as stored. @throws AppError NOT_FOUND for an unknown profile (nothing is written).
 */
export async function setProfileEgress({
  prisma,
  name,
  emailAllow,
  httpAllow,
  onBreach,
}: {
  prisma: PrismaClient;
  name: string;
  emailAllow: string[];
  httpAllow: string[];
  onBreach: "escalate" | "refuse" | null;
}) {
  const found = await prisma.agentProfile.findUnique({ where: { name }, select: { id: true } });
  if (!found) throw new AppError("NOT_FOUND", `profile "${name}" not found`);
  await refuseIfCodeManaged(prisma, "profile", name);
  return prisma.agentProfile.update({
    where: { name },
    data: { egressEmailAllow: emailAllow, egressHttpAllow: httpAllow, egressOnBreach: onBreach },
    select: { name: true, egressEmailAllow: true, egressHttpAllow: true, egressOnBreach: true },
  });
}
