import { launchTools } from "../../tools/launch-tools.ts";
import { z } from "zod";
import { idField, inputObject, textField } from "../../domain/input-fields.ts";
import { launchTaskInputSchema } from "../../domain/launch-task.ts";
import {
  templateNameSchema,
  createTemplate,
  createTemplateFromEvalCase,
  createTemplateFromTask,
  evalCaseFromTemplate,
  archiveTemplate,
  launchTemplate,
  listTemplates,
  updateTemplate,
  readTemplateHistory,
} from "../../features/templates/index.ts";
import { prismaLaunchPorts } from "../../db/launch-ports.ts";
import { sendRunStarted } from "../../inngest/send.ts";
import {
  templateArchiveOutput,
  templateAsEvalCaseOutput,
  templateHistoryOutput,
  templateLaunchOutput,
  templateListOutput,
  templateRefOutput,
} from "../output-schemas-eval.ts";
import { createTRPCRouter, operatorProcedure, readProcedure } from "../trpc.ts";

const template = textField("template", 100).refine((v) => v.length > 0, "template: a template's name or id");
const description = textField("description", 1_000).optional();
const shape = launchTaskInputSchema.shape;

/** What a launch from a template may change: the budgets and approval (the form's fields) and the launch key. */
const overridesSchema = inputObject({
  stepBudget: shape.stepBudget,
  tokenBudget: shape.tokenBudget,
  costBudgetUsd: shape.costBudgetUsd,
  requireApproval: shape.requireApproval,
  launchKey: shape.launchKey,
}).partial();

export const templateRouter = createTRPCRouter({
  /** Templates by name, with their task counts (the launch form's picker, `templates list`). */
  list: readProcedure.output(templateListOutput).query(({ ctx }) => listTemplates({ prisma: ctx.prisma })),
  /** "Save as template" on a task page: the task's shape under a new name. */
  saveFromTask: operatorProcedure
    .input(inputObject({ taskId: idField("taskId"), name: templateNameSchema, description }))
    .output(templateRefOutput)
    .mutation(({ ctx, input }) => createTemplateFromTask({ prisma: ctx.prisma, ...input, actor: ctx.actor })),
  /** A template from a launch given in full (launchTaskInputSchema, launchKey ignored). */
  create: operatorProcedure
    .input(inputObject({ name: templateNameSchema, description, launch: z.unknown() }))
    .output(templateRefOutput)
    .mutation(({ ctx, input }) => createTemplate({ prisma: ctx.prisma, ...input, actor: ctx.actor })),
  /** Edits a template's description and/or launch (launchTaskInputSchema, launchKey ignored). */
  update: operatorProcedure
    .input(inputObject({ template, description, launch: z.unknown().optional() }))
    .output(templateRefOutput)
    .mutation(({ ctx, input }) => updateTemplate({ prisma: ctx.prisma, ...input })),
  /** Deletes a template from use (archived: kept for its tasks and /costs, gone from the picker). */
  archive: operatorProcedure
    .input(inputObject({ template }))
    .output(templateArchiveOutput)
    .mutation(({ ctx, input }) => archiveTemplate({ prisma: ctx.prisma, ...input })),
  /** A template from an eval case's launch, on a profile. */
  fromEvalCase: operatorProcedure
    .input(inputObject({ suite: textField("suite", 200), caseKey: textField("caseKey", 200), profile: textField("profile", 100), name: templateNameSchema }))
    .output(templateRefOutput)
    .mutation(({ ctx, input }) => createTemplateFromEvalCase({ prisma: ctx.prisma, ...input, actor: ctx.actor })),
  /** A template's launch as an eval case's (for a suite file). */
  asEvalCase: readProcedure
    .input(inputObject({ template }))
    .output(templateAsEvalCaseOutput)
    .query(({ ctx, input }) => evalCaseFromTemplate({ prisma: ctx.prisma, ...input })),
  /** What the template's completed tasks cost and took (p50 / p90), and the suggested budgets (p90 × 1.25). */
  history: readProcedure
    .input(inputObject({ template }))
    .output(templateHistoryOutput)
    .query(({ ctx, input }) => readTemplateHistory({ prisma: ctx.prisma, ...input })),
  /** Launches a task from the template (the task records templateId). */
  launch: operatorProcedure
    .input(inputObject({ template, overrides: overridesSchema.optional() }))
    .output(templateLaunchOutput)
    .mutation(({ ctx, input }) =>
      launchTemplate({
        prisma: ctx.prisma,
        template: input.template,
        overrides: input.overrides ?? {},
        actor: ctx.actor,
        ports: prismaLaunchPorts({ prisma: ctx.prisma, sendRunStarted, tools: launchTools }),
      }),
    ),
});
