"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { TemplateHistory } from "@/components/tasks/template-history.tsx";
import { cn } from "@/components/ui/cn.ts";
import { demoStepBudget } from "@/lib/contracts/demo.ts";
import { launchLimitProblems, measureLaunch, parseFactsText, parseWholeNumber } from "@/lib/contracts/launch-limits.ts";
import {
  MAX_COST_BUDGET_USD,
  MAX_DEMO_PACKAGES,
  MAX_FACT_VALUE_BYTES,
  MAX_GOAL_CHARS,
  MAX_LAUNCH_FACTS,
  MAX_LAUNCH_FACTS_BYTES,
  MAX_STEP_BUDGET,
  MAX_TOKEN_BUDGET,
  MIN_COST_BUDGET_USD,
} from "@/lib/contracts/limits.ts";

const field =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-zinc-900 focus:outline-none focus:ring-1 focus:ring-zinc-900";
const label = "block text-sm font-medium text-zinc-800";

/**
 * The launch form: the seeded demo (license audit of node_modules, with a package limit) or a goal
 * of your own, a profile, budgets (steps; optional tokens and US dollars — empty = the profile's,
 * shown as the placeholder), optional facts (a JSON object: the working set the run starts from) and
 * the workspace. Live counters show the launch limits (lib/contracts/limits.ts: goal characters,
 * fact count, largest fact, all facts' bytes); a launch over a limit is refused before it is sent,
 * naming the field and the limit, and the server's refusal is still shown if it comes. A launch key
 * made once per form blocks double launches; on success the run page opens. Starting from a launch
 * template fills the form with its shape (the task fields are then fixed, the budgets editable),
 * shows what the template's completed tasks took with a suggested budget, and launches through
 * `template.launch` so the task records the template.
 */
export function LaunchForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const profiles = useQuery(trpc.profile.list.queryOptions());
  const demos = useQuery(trpc.demo.list.queryOptions());
  const [demoKind, setDemoKind] = useState<"license-audit" | "mcp-audit">("license-audit");
  const demo = demos.data?.find((d) => d.kind === demoKind) ?? demos.data?.[0];
  const [mode, setMode] = useState<"demo" | "goal">("demo");
  const [limit, setLimit] = useState("50");
  const [goal, setGoal] = useState("");
  const [profile, setProfile] = useState("scripted");
  const [stepBudget, setStepBudget] = useState("");
  const [tokenBudget, setTokenBudget] = useState("");
  const [costBudget, setCostBudget] = useState("");
  const [workspace, setWorkspace] = useState("");
  const [factsText, setFactsText] = useState("");
  /** null = the selected profile's default (sent as omitted, so the server applies the profile's). */
  const [approvalChoice, setApprovalChoice] = useState<boolean | null>(null);
  const [launchKey] = useState(() => crypto.randomUUID());
  const launch = useMutation(
    trpc.task.launch.mutationOptions({
      onSuccess: (res) => router.push(`/tasks/${res.taskId}`),
    }),
  );
  const templates = useQuery(trpc.template.list.queryOptions());
  const [templateName, setTemplateName] = useState("");
  const fromTemplate = templateName !== "";
  const launchFromTemplate = useMutation(
    trpc.template.launch.mutationOptions({
      onSuccess: (res) => router.push(`/tasks/${res.taskId}`),
    }),
  );
  const sending = fromTemplate ? launchFromTemplate : launch;

  /** Fills the form with a template's launch (or clears the choice). */
  function chooseTemplate(name: string) {
    setTemplateName(name);
    const t = templates.data?.find((x) => x.name === name);
    if (!t) return;
    const l = t.launch;
    if (l.demo) {
      setMode("demo");
      setDemoKind(l.demo.kind);
      setLimit(String(l.demo.limit));
    } else {
      setMode("goal");
      setGoal(l.goal ?? "");
    }
    setProfile(l.profile);
    setStepBudget(l.stepBudget === undefined ? "" : String(l.stepBudget));
    setTokenBudget(l.tokenBudget === undefined ? "" : String(l.tokenBudget));
    setCostBudget(l.costBudgetUsd === undefined ? "" : String(l.costBudgetUsd));
    setWorkspace(l.workspace ?? "");
    setFactsText(l.facts ? JSON.stringify(l.facts, null, 2) : "");
    setApprovalChoice(l.requireApproval ?? null);
  }

  const limitNumber = parseWholeNumber(limit);
  const limitError =
    mode === "demo" && (!Number.isInteger(limitNumber) || limitNumber < 1 || limitNumber > MAX_DEMO_PACKAGES)
      ? `Package limit: a whole number from 1 to ${MAX_DEMO_PACKAGES}`
      : null;
  const budgetNumber = stepBudget.trim() === "" ? undefined : parseWholeNumber(stepBudget);
  const budgetError =
    budgetNumber !== undefined && (!Number.isInteger(budgetNumber) || budgetNumber < 1 || budgetNumber > MAX_STEP_BUDGET)
      ? `Step budget: a whole number from 1 to ${MAX_STEP_BUDGET}`
      : null;
  const tokenNumber = tokenBudget.trim() === "" ? undefined : parseWholeNumber(tokenBudget);
  const tokenError =
    tokenNumber !== undefined && (!Number.isInteger(tokenNumber) || tokenNumber < 1 || tokenNumber > MAX_TOKEN_BUDGET)
      ? `Token budget: a whole number from 1 to ${MAX_TOKEN_BUDGET}`
      : null;
  const costNumber = costBudget.trim() === "" ? undefined : Number(costBudget.trim().replace(/^\$/, ""));
  const costError =
    costNumber !== undefined && (!Number.isFinite(costNumber) || costNumber < MIN_COST_BUDGET_USD || costNumber > MAX_COST_BUDGET_USD)
      ? `Dollar budget: from ${MIN_COST_BUDGET_USD.toFixed(6)} to ${MAX_COST_BUDGET_USD} (USD)`
      : null;
  const parsedFacts = parseFactsText(factsText);
  const facts = "facts" in parsedFacts ? parsedFacts.facts : {};
  const goalText = mode === "goal" ? goal : "";
  const usage = measureLaunch(goalText, facts);
  const limitProblems = launchLimitProblems(goalText, facts);
  const goalError =
    mode === "goal" && goal.trim() === "" ? "Goal: required" : (limitProblems.find((p) => p.startsWith("goal:"))?.replace(/^goal:/, "Goal:") ?? null);
  const factsError =
    "problem" in parsedFacts
      ? parsedFacts.problem.replace(/^facts:/, "Facts:")
      : (limitProblems.find((p) => p.startsWith("facts:"))?.replace(/^facts:/, "Facts:") ?? null);
  const selected = profiles.data?.find((p) => p.name === profile);
  const demoBudget = demo && Number.isInteger(limitNumber) && limitNumber >= 1 ? demoStepBudget(limitNumber) : null;
  const defaultBudget = mode === "demo" && demoBudget !== null ? Math.max(selected?.stepBudget ?? 0, demoBudget) : selected?.stepBudget;
  const profileRequiresApproval = selected?.requireApproval === true;
  const requireApproval = approvalChoice ?? profileRequiresApproval;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (limitError || budgetError || goalError || tokenError || costError || factsError) return;
    if (fromTemplate) {
      launchFromTemplate.mutate({
        template: templateName,
        overrides: { stepBudget: budgetNumber, tokenBudget: tokenNumber, costBudgetUsd: costNumber, requireApproval: approvalChoice ?? undefined, launchKey },
      });
      return;
    }
    launch.mutate({
      ...(mode === "demo" ? { demo: { kind: demo?.kind ?? "license-audit", limit: limitNumber } } : { goal: goal.trim() }),
      profile,
      stepBudget: budgetNumber,
      tokenBudget: tokenNumber,
      costBudgetUsd: costNumber,
      workspace: workspace.trim() || undefined,
      facts: usage.factCount > 0 ? facts : undefined,
      requireApproval: approvalChoice ?? undefined,
      launchKey,
    });
  }

  return (
    <div className="mx-auto max-w-3xl p-8">
      <h1 className="mb-6 text-2xl font-semibold tracking-tight">Launch a task</h1>
      <form onSubmit={submit} className="space-y-6 rounded-lg border border-zinc-200 bg-white p-6" aria-label="Launch a task">
        {(templates.data?.length ?? 0) > 0 && (
          <div>
            <label htmlFor="template" className={label}>
              Start from a template
            </label>
            <select id="template" className={field} value={templateName} onChange={(e) => chooseTemplate(e.target.value)}>
              <option value="">— none —</option>
              {templates.data?.map((t) => (
                <option key={t.id} value={t.name}>
                  {t.name} ({t.launch.profile}, {t.completed} completed)
                </option>
              ))}
            </select>
            {fromTemplate && (
              <TemplateHistory
                template={templateName}
                onUse={(b) => {
                  if (b.stepBudget !== null) setStepBudget(String(b.stepBudget));
                  if (b.tokenBudget !== null) setTokenBudget(String(b.tokenBudget));
                  if (b.costBudgetUsd !== null) setCostBudget(String(b.costBudgetUsd));
                }}
              />
            )}
          </div>
        )}
        <fieldset disabled={fromTemplate} className="space-y-6 disabled:opacity-70">
          <fieldset>
            <legend className={label}>What should the agent do?</legend>
            <div className="mt-2 grid grid-cols-2 gap-3">
              {(["demo", "goal"] as const).map((m) => (
                <label
                  key={m}
                  className={cn("cursor-pointer rounded-md border p-3 text-sm", mode === m ? "border-zinc-900 ring-1 ring-zinc-900" : "border-zinc-300")}
                >
                  <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} className="mr-2" />
                  {m === "demo" ? (demo?.title ?? "Demo: license audit") : "A goal of my own"}
                  {m === "demo" && <span className="mt-1 block text-xs text-zinc-500">{demo?.description}</span>}
                </label>
              ))}
            </div>
          </fieldset>

          {mode === "demo" ? (
            <div>
              {(demos.data?.length ?? 0) > 1 && (
                <div className="mb-4">
                  <label htmlFor="demo-kind" className={label}>
                    Demo
                  </label>
                  <select id="demo-kind" className={field} value={demoKind} onChange={(e) => setDemoKind(e.target.value as typeof demoKind)}>
                    {demos.data?.map((d) => (
                      <option key={d.kind} value={d.kind}>
                        {d.title}
                      </option>
                    ))}
                  </select>
                </div>
              )}
              <label htmlFor="limit" className={label}>
                Package limit
              </label>
              <input
                id="limit"
                name="limit"
                inputMode="numeric"
                className={field}
                value={limit}
                onChange={(e) => setLimit(e.target.value)}
                aria-invalid={!!limitError}
              />
              <p className="mt-1 text-xs text-zinc-500">The first N packages of node_modules, sorted by name (default {demo?.defaultLimit ?? 50}).</p>
              {limitError && <p className="mt-1 text-xs text-red-700">{limitError}</p>}
            </div>
          ) : (
            <div>
              <label htmlFor="goal" className={label}>
                Goal
              </label>
              <textarea
                id="goal"
                name="goal"
                rows={4}
                className={field}
                value={goal}
                onChange={(e) => setGoal(e.target.value)}
                aria-invalid={!!goalError}
                aria-describedby="goal-count"
              />
              <p id="goal-count" data-testid="goal-count" className={cn("mt-1 text-xs", usage.goalChars > MAX_GOAL_CHARS ? "text-red-700" : "text-zinc-500")}>
                {usage.goalChars.toLocaleString("en-US")} of {MAX_GOAL_CHARS.toLocaleString("en-US")} characters
              </p>
              {goalError && (
                <p data-testid="field-error" className="mt-1 text-xs text-red-700">
                  {goalError}
                </p>
              )}
            </div>
          )}
        </fieldset>

        <div className="grid grid-cols-2 gap-4">
          <div>
            <label htmlFor="profile" className={label}>
              Agent profile
            </label>
            <select
              id="profile"
              name="profile"
              className={field}
              value={profile}
              disabled={fromTemplate}
              onChange={(e) => {
                setProfile(e.target.value);
                setApprovalChoice(null);
              }}
            >
              {profiles.data?.map((p) => (
                <option key={p.id} value={p.name}>
                  {p.name} — {p.model === "scripted" || p.model.startsWith("scripted-") ? "offline scripted model" : p.model}
                </option>
              ))}
            </select>
            {selected && <p className="mt-1 text-xs text-zinc-500">{selected.description}</p>}
          </div>
          <BudgetField
            id="stepBudget"
            label="Step budget"
            inputMode="numeric"
            placeholder={defaultBudget ? String(defaultBudget) : ""}
            value={stepBudget}
            onChange={setStepBudget}
            error={budgetError}
          >
            Hard ceiling on model + tool steps{defaultBudget ? ` (default ${defaultBudget})` : ""}.
          </BudgetField>
        </div>

        <div className="grid grid-cols-2 gap-4">
          <BudgetField
            id="tokenBudget"
            label="Token budget"
            inputMode="numeric"
            placeholder={selected?.tokenBudget ? String(selected.tokenBudget) : "none"}
            value={tokenBudget}
            onChange={setTokenBudget}
            error={tokenError}
          >
            Optional ceiling on prompt + completion tokens; empty = the profile&apos;s (
            {selected?.tokenBudget ? selected.tokenBudget.toLocaleString("en-US") : "none"}).
          </BudgetField>
          <BudgetField
            id="costBudgetUsd"
            label="Dollar budget (USD)"
            inputMode="decimal"
            placeholder={selected?.costBudgetUsd ? String(selected.costBudgetUsd) : "none"}
            value={costBudget}
            onChange={setCostBudget}
            error={costError}
          >
            Optional ceiling on model spend, retries included; empty = the profile&apos;s ({selected?.costBudgetUsd ? `$${selected.costBudgetUsd}` : "none"}).
          </BudgetField>
        </div>

        <div>
          <label htmlFor="facts" className={label}>
            Facts (optional)
          </label>
          <textarea
            id="facts"
            name="facts"
            rows={3}
            placeholder='{"region": "eu-west-1", "owner": "platform team"}'
            className={cn(field, "font-mono")}
            disabled={fromTemplate}
            value={factsText}
            onChange={(e) => setFactsText(e.target.value)}
            aria-invalid={!!factsError}
            aria-describedby="facts-help facts-count"
          />
          <p id="facts-help" className="mt-1 text-xs text-zinc-500">
            A JSON object of key → value: the working set the run starts from. Each value at most {kib(MAX_FACT_VALUE_BYTES)}; store large data as a file in the
            workspace and pass its path.
          </p>
          <p id="facts-count" data-testid="facts-count" className={cn("mt-1 text-xs", factsError ? "text-red-700" : "text-zinc-500")}>
            {usage.factCount.toLocaleString("en-US")} of {MAX_LAUNCH_FACTS.toLocaleString("en-US")} facts · {kib(usage.factsBytes)} of{" "}
            {kib(MAX_LAUNCH_FACTS_BYTES)} in all
            {usage.largestFact ? ` · largest "${usage.largestFact.key.slice(0, 40)}" ${kib(usage.largestFact.bytes)} of ${kib(MAX_FACT_VALUE_BYTES)}` : ""}
          </p>
          {factsError && (
            <p data-testid="field-error" className="mt-1 text-xs text-red-700">
              {factsError}
            </p>
          )}
        </div>

        <div>
          <label htmlFor="workspace" className={label}>
            Workspace
          </label>
          <input
            id="workspace"
            name="workspace"
            placeholder={demo?.workspace}
            className={cn(field, "font-mono")}
            disabled={fromTemplate}
            value={workspace}
            onChange={(e) => setWorkspace(e.target.value)}
          />
          <p className="mt-1 text-xs text-zinc-500">Folder on the server the file tools may read (read-only). Empty = the default shown.</p>
        </div>

        <div>
          <label className="flex items-center gap-2 text-sm font-medium text-zinc-800">
            <input type="checkbox" name="requireApproval" checked={requireApproval} onChange={(e) => setApprovalChoice(e.target.checked)} />
            Ask a human before risky actions (send_email)
          </label>
          <p className="mt-1 text-xs text-zinc-500">
            The run checkpoints and waits in the escalation inbox for Approve or Reject before the call. Default from the profile (
            {profileRequiresApproval ? "on" : "off"}).
          </p>
        </div>

        {sending.isError && (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
            {sending.error.message}
          </div>
        )}

        <div className="flex items-center justify-end gap-3">
          <button
            type="submit"
            disabled={sending.isPending || sending.isSuccess}
            className="rounded-md bg-zinc-900 px-5 py-2 text-sm font-medium text-white hover:bg-zinc-800 disabled:opacity-60"
          >
            {sending.isPending || sending.isSuccess ? "Launching…" : fromTemplate ? `Launch from ${templateName}` : "Launch"}
          </button>
        </div>
      </form>
    </div>
  );
}

/** Bytes as the counters print them: "512 B", "14.2 KiB", "1 MiB". */
function kib(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${Number((bytes / 1024 / 1024).toFixed(2))} MiB`;
}

/** One budget input of the form: label, text input, help line (described-by) and its inline error. */
function BudgetField({
  id,
  label: text,
  inputMode,
  placeholder,
  value,
  onChange,
  error,
  children,
}: {
  id: string;
  label: string;
  inputMode: "numeric" | "decimal";
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  error: string | null;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className={label}>
        {text}
      </label>
      <input
        id={id}
        name={id}
        inputMode={inputMode}
        placeholder={placeholder}
        className={field}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={!!error}
        aria-describedby={`${id}-help`}
      />
      <p id={`${id}-help`} className="mt-1 text-xs text-zinc-500">
        {children}
      </p>
      {error && <p className="mt-1 text-xs text-red-700">{error}</p>}
    </div>
  );
}
