/**
 * `npm run cli -- templates <list|save|history|edit|delete> …` (launch templates) through the API
 * (`template.*` procedures); `launch --template <name>` is in scripts/cli/launch.ts. The last stdout line
 * is JSON (printed by scripts/cli.ts); human lines go to stderr.
 */
import type { TRPCClient } from "@trpc/client";
import type { AppRouter } from "../../server/api/root.ts";
import { UsageError, type CommandSpec, type FlagValues } from "./cli-args.ts";
import { terminalSafe } from "./cli-text.ts";

const P = "npm run cli --";

export const TEMPLATES_COMMANDS: readonly CommandSpec[] = [
  { name: "templates list", summary: "List launch templates with their task counts.", examples: [`${P} templates list`] },
  {
    name: "templates save",
    summary: "Save a task's shape (goal or demo, profile, budgets, workspace, facts) as a launch template.",
    positionals: [{ name: "taskId", description: "the task to copy" }],
    flags: { name: { type: "string", value: "<name>", description: "the template's name (kebab-case)" } },
    examples: [`${P} templates save task_01jx… --name weekly-license-audit`],
  },
  {
    name: "templates history",
    summary: "What the template's completed tasks took (p50 / p90 steps and cost) and the suggested budgets.",
    positionals: [{ name: "template", description: "the template's name" }],
    examples: [`${P} templates history weekly-license-audit`],
  },
  {
    name: "templates edit",
    summary: "Change a template's description and/or its launch (a JSON launch as `launch` takes it).",
    positionals: [{ name: "template", description: "the template's name" }],
    flags: {
      description: { type: "string", value: "<text>", description: "the new description" },
      launch: { type: "string", value: "<json>", description: 'the new launch, e.g. {"goal":"…","profile":"scripted","stepBudget":40}' },
    },
    examples: [`${P} templates edit weekly-license-audit --description "every Monday"`],
  },
  {
    name: "templates delete",
    summary: "Delete a template from use (archived: kept for its tasks and /costs, gone from the list and launches).",
    positionals: [{ name: "template", description: "the template's name" }],
    examples: [`${P} templates delete weekly-license-audit`],
  },
];

/** Runs one of the templates commands; returns the JSON to print. */
export async function runTemplates(api: TRPCClient<AppRouter>, command: string, values: FlagValues, positionals: string[]): Promise<unknown> {
  if (command === "templates list") {
    const rows = await api.template.list.query();
    for (const t of rows) process.stderr.write(`${terminalSafe(t.name)}  ${terminalSafe(t.launch.profile)}  ${t.tasks} tasks (${t.completed} completed)\n`);
    return { templates: rows.map((t) => ({ name: t.name, id: t.id, profile: t.launch.profile, tasks: t.tasks, completed: t.completed })) };
  }
  if (command === "templates save") {
    if (typeof values.name !== "string") throw new UsageError(["--name: required (the template's name, kebab-case)"], command);
    return api.template.saveFromTask.mutate({ taskId: positionals[0]!, name: values.name });
  }
  if (command === "templates edit") {
    let launch: unknown;
    if (typeof values.launch === "string") {
      try {
        launch = JSON.parse(values.launch);
      } catch {
        throw new UsageError(["--launch: a JSON object (the launch, as `launch` takes it)"], command);
      }
    }
    if (launch === undefined && typeof values.description !== "string") throw new UsageError(["templates edit: give --description and/or --launch"], command);
    return api.template.update.mutate({
      template: positionals[0]!,
      ...(typeof values.description === "string" ? { description: values.description } : {}),
      ...(launch === undefined ? {} : { launch }),
    });
  }
  if (command === "templates delete") return api.template.archive.mutate({ template: positionals[0]! });
  const h = await api.template.history.query({ template: positionals[0]! });
  process.stderr.write(`${terminalSafe(h.note)}\n`);
  return h;
}
