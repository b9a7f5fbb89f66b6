"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { demoStepBudget } from "@/lib/contracts/demo.ts";
import { validateLaunch } from "./use-launch-validation.ts";
import { useLaunchDraft } from "./use-launch-draft.ts";

/** Budgets as the form's text fields hold them ("" = empty). */
export interface BudgetTexts {
  stepBudget: string;
  tokenBudget: string;
  costBudget: string;
}

const text = (x: number | null | undefined) => (x === null || x === undefined ? "" : String(x));

/**
 * The launch form's state and behaviour: the fields, their validation, the chosen template and the
 * budgets suggested from its history, and the submit. Choosing a template fills the form with its
 * launch and then — once its history is read — puts the suggested budgets (p90 × 1.25 of its
 * completed tasks) in the budget fields; a budget still equal to its suggestion on submit is not
 * sent, so the server applies the suggestion and records that it came from history; one the
 * operator changed is sent as theirs. Without history the template's budgets stay, and the panel
 * says so. `?template=<name>` in the URL starts from that template. A launch key made once per form blocks double launches; success opens the task page.
 */
export function useLaunchForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const profiles = useQuery(trpc.profile.list.queryOptions());
  const demos = useQuery(trpc.demo.list.queryOptions());
  const templates = useQuery(trpc.template.list.queryOptions());
  const [demoKind, setDemoKind] = useState<"license-audit" | "mcp-audit">("license-audit");
  const demo = demos.data?.find((d) => d.kind === demoKind) ?? demos.data?.[0];
  const [mode, setMode] = useState<"demo" | "goal">("demo");
  const [limit, setLimit] = useState("50");
  const [goal, setGoal] = useState("");
  const [profile, setProfile] = useState("scripted");
  const [budgets, setBudgets] = useState<BudgetTexts>({ stepBudget: "", tokenBudget: "", costBudget: "" });
  const [workspace, setWorkspace] = useState("");
  const [factsText, setFactsText] = useState("");
  /** null = the selected profile's default (sent as omitted, so the server applies the profile's). */
  const [approvalChoice, setApprovalChoice] = useState<boolean | null>(null);
  const [launchKey, setLaunchKey] = useState(() => crypto.randomUUID());
  const [templateName, setTemplateName] = useState("");
  /** The budgets suggested from the chosen template's history (null = none: no history, or not read yet). */
  const [suggested, setSuggested] = useState<BudgetTexts | null>(null);
  const fromTemplate = templateName !== "";
  // `/tasks/new?template=<name>` starts from that template (below); otherwise the tab's draft comes back.
  const templateParam = useSearchParams().get("template");
  const draft = useLaunchDraft(
    { mode, demoKind, limit, goal, profile, budgets, workspace, factsText, approvalChoice, templateName, suggested, launchKey },
    (d) => {
      setMode(d.mode);
      setDemoKind(d.demoKind);
      setLimit(d.limit);
      setGoal(d.goal);
      setProfile(d.profile);
      setBudgets(d.budgets);
      setWorkspace(d.workspace);
      setFactsText(d.factsText);
      setApprovalChoice(d.approvalChoice);
      setTemplateName(d.templateName);
      setSuggested(d.suggested);
      setLaunchKey(d.launchKey);
    },
    !templateParam,
  );
  const onSuccess = (res: { taskId: string }) => {
    draft.clear();
    router.push(`/tasks/${res.taskId}`);
  };
  const launch = useMutation(trpc.task.launch.mutationOptions({ onSuccess }));
  const launchFromTemplate = useMutation(trpc.template.launch.mutationOptions({ onSuccess }));
  const sending = fromTemplate ? launchFromTemplate : launch;

  /** Fills the form with a template's launch (or clears the choice), then its history's suggestion. */
  async function chooseTemplate(name: string) {
    setTemplateName(name);
    setSuggested(null);
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
    setBudgets({ stepBudget: text(l.stepBudget), tokenBudget: text(l.tokenBudget), costBudget: text(l.costBudgetUsd) });
    setWorkspace(l.workspace ?? "");
    setFactsText(l.facts ? JSON.stringify(l.facts, null, 2) : "");
    setApprovalChoice(l.requireApproval ?? null);
    const h = await queryClient.fetchQuery(trpc.template.history.queryOptions({ template: name })).catch(() => null);
    if (h?.basis !== "history") return;
    const s = { stepBudget: text(h.stepBudget), tokenBudget: text(h.tokenBudget), costBudget: text(h.costBudgetUsd) };
    setSuggested(s);
    setBudgets((b) => ({
      stepBudget: s.stepBudget || b.stepBudget,
      tokenBudget: s.tokenBudget || b.tokenBudget,
      costBudget: s.costBudget || b.costBudget,
    }));
  }

  // `/tasks/new?template=<name>` (the task page's "From launch template" link) starts from that
  // template once the list is read; an unknown or archived name leaves the form as it is.
  const appliedParam = useRef(false);
  useEffect(() => {
    if (appliedParam.current || !templateParam || !templates.data) return;
    appliedParam.current = true;
    if (templates.data.some((x) => x.name === templateParam)) void chooseTemplate(templateParam);
  });

  const v = validateLaunch({ mode, limit, goal, factsText, ...budgets });
  // The profile the form launches with, and shows: the one chosen, or — when that is not (or no
  // longer) a profile, such as the default "scripted" on an install without it — the first listed,
  // the one the select then shows, so its description and budgets show from the start.
  const selected = profiles.data?.find((p) => p.name === profile) ?? profiles.data?.[0];
  const launchProfile = selected?.name ?? profile;
  const demoBudget = demo && Number.isInteger(v.limitNumber) && v.limitNumber >= 1 ? demoStepBudget(v.limitNumber) : null;
  const defaultBudget = mode === "demo" && demoBudget !== null ? Math.max(selected?.stepBudget ?? 0, demoBudget) : selected?.stepBudget;
  const profileRequiresApproval = selected?.requireApproval === true;
  /** Per budget field: the suggestion from history is in it (unchanged by the operator). */
  const fromHistory = {
    stepBudget: suggested !== null && suggested.stepBudget !== "" && budgets.stepBudget === suggested.stepBudget,
    tokenBudget: suggested !== null && suggested.tokenBudget !== "" && budgets.tokenBudget === suggested.tokenBudget,
    costBudget: suggested !== null && suggested.costBudget !== "" && budgets.costBudget === suggested.costBudget,
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!v.valid) return;
    if (fromTemplate) {
      launchFromTemplate.mutate({
        template: templateName,
        overrides: {
          stepBudget: fromHistory.stepBudget ? undefined : v.budgetNumber,
          tokenBudget: fromHistory.tokenBudget ? undefined : v.tokenNumber,
          costBudgetUsd: fromHistory.costBudget ? undefined : v.costNumber,
          requireApproval: approvalChoice ?? undefined,
          launchKey,
        },
      });
      return;
    }
    launch.mutate({
      ...(mode === "demo" ? { demo: { kind: demo?.kind ?? "license-audit", limit: v.limitNumber } } : { goal: goal.trim() }),
      profile: launchProfile,
      stepBudget: v.budgetNumber,
      tokenBudget: v.tokenNumber,
      costBudgetUsd: v.costNumber,
      workspace: workspace.trim() || undefined,
      facts: v.usage.factCount > 0 ? v.facts : undefined,
      requireApproval: approvalChoice ?? undefined,
      launchKey,
    });
  }

  return {
    profiles: profiles.data ?? [],
    demos: demos.data ?? [],
    templates: templates.data ?? [],
    demo,
    demoKind,
    setDemoKind,
    mode,
    setMode,
    limit,
    setLimit,
    goal,
    setGoal,
    profile: launchProfile,
    chooseProfile: (name: string) => {
      setProfile(name);
      setApprovalChoice(null);
    },
    budgets,
    setBudget: (key: keyof BudgetTexts, value: string) => setBudgets((b) => ({ ...b, [key]: value })),
    fromHistory,
    /** Every budget the history suggests is in its field, unchanged. */
    historyApplied: suggested !== null && (Object.keys(suggested) as (keyof BudgetTexts)[]).every((k) => suggested[k] === "" || budgets[k] === suggested[k]),
    workspace,
    setWorkspace,
    factsText,
    setFactsText,
    requireApproval: approvalChoice ?? profileRequiresApproval,
    profileRequiresApproval,
    setApprovalChoice,
    templateName,
    fromTemplate,
    chooseTemplate: (name: string) => void chooseTemplate(name),
    selected,
    defaultBudget,
    v,
    sending,
    submit,
  };
}

/** What useLaunchForm returns: the panels take it whole. */
export type LaunchFormState = ReturnType<typeof useLaunchForm>;
