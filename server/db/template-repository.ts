import { ulid } from "ulid";
import { AppError } from "../errors.ts";
import {
  evalCaseLaunchFromTemplate,
  parseTemplateLaunch,
  templateHistory,
  templateLaunchFromEvalCase,
  templateLaunchFromTask,
  templateLaunchWithHistory,
  type TemplateHistory,
  type TemplateLaunch,
} from "../domain/launch-template.ts";
import { launchTask, type LaunchPorts, type LaunchTaskInput } from "../domain/launch-task.ts";
import type { BudgetBasis } from "../domain/budget-from-history.ts";
import { Prisma, type PrismaClient } from "./client.ts";
import { jsonColumnCodec } from "./json-codec.ts";

/**
 * LaunchTemplate.launch: the launch a template keeps (parseTemplateLaunch: launchTaskInputSchema's
 * shape without launchKey, defaults applied, e.g. profile `scripted`; its refusal names the field).
 * The one codec of the column; here rather than in json-columns.ts, which may not import a use case.
 */
export const templateLaunchJson = jsonColumnCodec<TemplateLaunch>("LaunchTemplate.launch", parseTemplateLaunch);

const newId = (): string => `tmpl_${ulid().toLowerCase()}`;

/** A template as the list, the launch form and the CLI show it. */
export interface LaunchTemplateRow {
  id: string;
  name: string;
  description: string;
  launch: TemplateLaunch;
  fromTaskId: string | null;
  createdBy: string;
  createdAt: string;
  /** Tasks launched from it, and how many of them completed. */
  tasks: number;
  completed: number;
}

const isUniqueViolation = (e: unknown) => e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002";

async function insertTemplate(
  prisma: PrismaClient,
  data: { name: string; description: string; launch: TemplateLaunch; fromTaskId: string | null; createdBy: string },
): Promise<{ templateId: string; name: string }> {
  const id = newId();
  try {
    await prisma.launchTemplate.create({ data: { id, ...data, launch: templateLaunchJson.encode(data.launch) } });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", `name: a launch template named "${data.name}" already exists`);
    throw e;
  }
  return { templateId: id, name: data.name };
}

/**
 * "Save as template": a template with the task's shape (templateLaunchFromTask: goal or demo, profile,
 * budgets, approval, workspace, facts).
 * @throws AppError NOT_FOUND (task), CONFLICT (name taken), BAD_INPUT (the shape is no valid launch).
 */
export async function createTemplateFromTask({
  prisma,
  taskId,
  name,
  description = "",
  actor,
}: {
  prisma: PrismaClient;
  taskId: string;
  name: string;
  description?: string;
  actor: string;
}): Promise<{ templateId: string; name: string }> {
  const task = await prisma.task.findUnique({ where: { id: taskId }, include: { profile: { select: { name: true } } } });
  if (!task) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  const launch = templateLaunchFromTask({
    goal: task.goal,
    profileName: task.profile.name,
    stepBudget: task.stepBudget,
    tokenBudget: task.tokenBudget,
    costBudgetUsd: task.costBudgetUsd === null ? null : Number(task.costBudgetUsd),
    requireApproval: task.requireApproval,
    workspace: task.workspace,
    input: task.input,
  });
  return insertTemplate(prisma, { name, description, launch, fromTaskId: taskId, createdBy: actor });
}

/**
 * A template from a launch given directly (the CLI, or an eval case's launch with a profile).
 * @throws AppError CONFLICT (name taken), BAD_INPUT (not a valid launch).
 */
export async function createTemplate({
  prisma,
  name,
  description = "",
  launch,
  actor,
}: {
  prisma: PrismaClient;
  name: string;
  description?: string;
  launch: unknown;
  actor: string;
}): Promise<{ templateId: string; name: string }> {
  return insertTemplate(prisma, { name, description, launch: parseTemplateLaunch(launch), fromTaskId: null, createdBy: actor });
}

/**
 * A template from an eval case (its launch, on `profile`).
 * @throws AppError NOT_FOUND (suite or case), CONFLICT, BAD_INPUT.
 */
export async function createTemplateFromEvalCase({
  prisma,
  suite,
  caseKey,
  profile,
  name,
  actor,
}: {
  prisma: PrismaClient;
  suite: string;
  caseKey: string;
  profile: string;
  name: string;
  actor: string;
}): Promise<{ templateId: string; name: string }> {
  const found = await prisma.evalCase.findFirst({ where: { key: caseKey, suite: { OR: [{ name: suite }, { id: suite }] } }, select: { launch: true } });
  if (!found) throw new AppError("NOT_FOUND", `case: no case "${caseKey}" in eval suite "${suite}"`);
  return insertTemplate(prisma, {
    name,
    description: `from eval case ${suite}/${caseKey}`,
    launch: templateLaunchFromEvalCase(found.launch, profile),
    fromTaskId: null,
    createdBy: actor,
  });
}

/** A template's launch as an eval case's launch (profile dropped), for a suite file. @throws AppError NOT_FOUND. */
export async function evalCaseFromTemplate({ prisma, template }: { prisma: PrismaClient; template: string }) {
  const t = await findTemplateOrThrow(prisma, template);
  return { name: t.name, launch: evalCaseLaunchFromTemplate(templateLaunchJson.decode(t.launch, t.id)) };
}

async function findTemplateOrThrow(prisma: PrismaClient, template: string) {
  const t = await prisma.launchTemplate.findFirst({ where: { OR: [{ name: template }, { id: template }] } });
  if (!t) throw new AppError("NOT_FOUND", `template: no launch template named "${template}"`);
  return t;
}

/**
 * Edits a template: a new description and/or launch (validated as a launch, launchKey dropped).
 * Tasks launched before keep what they were launched with; its history stays its history.
 * @throws AppError NOT_FOUND (unknown or archived), BAD_INPUT (not a valid launch).
 */
export async function updateTemplate({
  prisma,
  template,
  description,
  launch,
}: {
  prisma: PrismaClient;
  template: string;
  description?: string;
  launch?: unknown;
}): Promise<{ templateId: string; name: string }> {
  const t = await findTemplateOrThrow(prisma, template);
  if (t.archivedAt) throw new AppError("NOT_FOUND", `template: "${t.name}" is archived`);
  await prisma.launchTemplate.update({
    where: { id: t.id },
    data: {
      ...(description === undefined ? {} : { description }),
      ...(launch === undefined ? {} : { launch: templateLaunchJson.encode(parseTemplateLaunch(launch)) }),
    },
  });
  return { templateId: t.id, name: t.name };
}

/**
 * Deletes a template from use: archived (gone from the list, the launch form and launches), kept
 * for the tasks that point at it and /costs. Its name stays taken. Idempotent.
 * @throws AppError NOT_FOUND.
 */
export async function archiveTemplate({ prisma, template }: { prisma: PrismaClient; template: string }): Promise<{ templateId: string; archived: true }> {
  const t = await findTemplateOrThrow(prisma, template);
  if (!t.archivedAt) await prisma.launchTemplate.update({ where: { id: t.id }, data: { archivedAt: new Date() } });
  return { templateId: t.id, archived: true };
}

/** All templates not archived, by name, with their task counts. */
export async function listTemplates({ prisma }: { prisma: PrismaClient }): Promise<LaunchTemplateRow[]> {
  const [rows, counts] = await Promise.all([
    prisma.launchTemplate.findMany({ where: { archivedAt: null }, orderBy: { name: "asc" } }),
    prisma.task.groupBy({ by: ["templateId", "status"], where: { templateId: { not: null } }, _count: { _all: true } }),
  ]);
  return rows.map((t) => {
    const mine = counts.filter((c) => c.templateId === t.id);
    return {
      id: t.id,
      name: t.name,
      description: t.description,
      launch: templateLaunchJson.decode(t.launch, t.id),
      fromTaskId: t.fromTaskId,
      createdBy: t.createdBy,
      createdAt: t.createdAt.toISOString(),
      tasks: mine.reduce((n, c) => n + c._count._all, 0),
      completed: mine.filter((c) => c.status === "completed").reduce((n, c) => n + c._count._all, 0),
    };
  });
}

/**
 * What the completed tasks launched from a template took (steps, tokens = prompt + completion,
 * dollars, from task_cost) and the budgets suggested from them (templateHistory: p90 × 1.25, at
 * least 3 completed tasks; else the template's budgets, or its profile's).
 * @throws AppError NOT_FOUND.
 */
export async function readTemplateHistory({ prisma, template }: { prisma: PrismaClient; template: string }): Promise<TemplateHistory & { template: string }> {
  return historyOf(prisma, await findTemplateOrThrow(prisma, template));
}

async function historyOf(prisma: PrismaClient, t: { id: string; name: string; launch: unknown }): Promise<TemplateHistory & { template: string }> {
  const launch = templateLaunchJson.decode(t.launch, t.id);
  const [rows, profile] = await Promise.all([
    prisma.$queryRaw<{ steps: number; tokens: string; usd: string }[]>`
      SELECT coalesce(c.steps, 0)::int AS steps, (coalesce(c."promptTokens", 0) + coalesce(c."completionTokens", 0))::text AS tokens,
             coalesce(c."costUsd", 0)::text AS usd
      FROM task k LEFT JOIN task_cost c ON c."taskId" = k.id
      WHERE k."templateId" = ${t.id} AND k.status = 'completed'`,
    prisma.agentProfile.findUnique({ where: { name: launch.profile }, select: { stepBudget: true, tokenBudget: true, costBudgetUsd: true } }),
  ]);
  const history = rows.map((r) => ({ steps: r.steps, tokens: Number(r.tokens), costUsd: Number(r.usd) }));
  const fallback = {
    stepBudget: launch.stepBudget ?? profile?.stepBudget ?? null,
    tokenBudget: launch.tokenBudget ?? profile?.tokenBudget ?? null,
    costBudgetUsd: launch.costBudgetUsd ?? (profile?.costBudgetUsd == null ? null : Number(profile.costBudgetUsd)),
  };
  return { template: t.name, ...templateHistory(history, fallback) };
}

/**
 * Launches a task from a template: its launch, the budgets suggested from its history
 * (readTemplateHistory: p90 × 1.25 of its completed tasks, once there are 3) for each budget the
 * caller does not give, then `overrides` on top (the budgets the operator chose, a launch key).
 * The task records the template's id and, when a ceiling came from history, Task.budgetBasis
 * (so a ceiling reached says how unlike the others the task is). Without history the template's
 * (or its profile's) budgets apply, as before.
 * @throws AppError NOT_FOUND (template, or archived), and whatever launchTask throws.
 */
export async function launchTemplate({
  prisma,
  template,
  overrides = {},
  actor,
  ports,
}: {
  prisma: PrismaClient;
  template: string;
  overrides?: Partial<LaunchTaskInput>;
  actor: string;
  ports: LaunchPorts;
}): Promise<{ taskId: string; runId: string; deduplicated: boolean; templateId: string; budgetBasis: BudgetBasis | null }> {
  const t = await findTemplateOrThrow(prisma, template);
  if (t.archivedAt) throw new AppError("NOT_FOUND", `template: "${t.name}" is archived`);
  const history = await historyOf(prisma, t);
  const { input, budgetBasis } = templateLaunchWithHistory({ name: t.name, launch: t.launch, history, overrides });
  const launched = await launchTask({ input, actor, ports, templateId: t.id, budgetBasis });
  return { ...launched, templateId: t.id, budgetBasis };
}
