"use client";

import { useId } from "react";
import { cn } from "@/components/ui/cn.ts";
import { MAX_GOAL_CHARS } from "@/lib/contracts/limits.ts";
import type { LaunchFormState } from "./use-launch-form.ts";
import { field, label } from "./styles.ts";

/**
 * What the agent should do, chosen once: one of the demos (then its package limit) or a goal of
 * one's own (with its counter). Fixed when launching from a template.
 */
export function TaskFields({ f }: { f: LaunchFormState }) {
  const { demo, v } = f;
  const idBase = useId();
  const demos = f.demos.length > 0 ? f.demos : [{ kind: f.demoKind, title: "Demo: license audit", description: "" }];
  const choices = [
    ...demos.map((d) => ({
      key: d.kind,
      title: d.title,
      description: d.description,
      checked: f.mode === "demo" && f.demoKind === d.kind,
      pick: () => {
        f.setMode("demo");
        f.setDemoKind(d.kind);
      },
    })),
    {
      key: "goal",
      title: "A goal of my own",
      description: "Say what to do in your own words; the agent works in the workspace below.",
      checked: f.mode === "goal",
      pick: () => f.setMode("goal"),
    },
  ];
  return (
    <fieldset disabled={f.fromTemplate} className="space-y-6 disabled:opacity-70">
      <fieldset>
        <legend className={label}>What should the agent do?</legend>
        {/* One choice, asked once: each demo is its own card beside "A goal of my own" (no second "Demo" picker). */}
        <div className="mt-2 grid gap-3 sm:grid-cols-[repeat(auto-fit,minmax(13rem,1fr))]">
          {choices.map((c) => (
            <label
              key={c.key}
              className={cn("cursor-pointer rounded-md border p-3 text-sm", c.checked ? "border-zinc-900 ring-1 ring-zinc-900" : "border-zinc-300")}
            >
              {/* Named by its title alone and described by its description, so the description's words
                  (e.g. "workspace") do not make it answer to another field's label. */}
              <input
                type="radio"
                name="mode"
                value={c.key}
                checked={c.checked}
                onChange={c.pick}
                aria-labelledby={`${idBase}-${c.key}-title`}
                aria-describedby={c.description ? `${idBase}-${c.key}-description` : undefined}
                className="mr-2"
              />
              <span id={`${idBase}-${c.key}-title`}>{c.title}</span>
              <span id={`${idBase}-${c.key}-description`} className="mt-1 block text-xs text-zinc-500">
                {c.description}
              </span>
            </label>
          ))}
        </div>
      </fieldset>

      {f.mode === "demo" ? (
        <div>
          <label htmlFor="limit" className={label}>
            Package limit
          </label>
          <input
            id="limit"
            name="limit"
            inputMode="numeric"
            className={field}
            value={f.limit}
            onChange={(e) => f.setLimit(e.target.value)}
            aria-invalid={!!v.limitError}
          />
          <p className="mt-1 text-xs text-zinc-500">The first N packages of node_modules, sorted by name (default {demo?.defaultLimit ?? 50}).</p>
          {v.limitError && <p className="mt-1 text-xs text-red-700">{v.limitError}</p>}
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
            value={f.goal}
            onChange={(e) => f.setGoal(e.target.value)}
            aria-invalid={!!v.goalError}
            aria-describedby="goal-count"
          />
          <p id="goal-count" data-testid="goal-count" className={cn("mt-1 text-xs", v.usage.goalChars > MAX_GOAL_CHARS ? "text-red-700" : "text-zinc-500")}>
            {v.usage.goalChars.toLocaleString("en-US")} of {MAX_GOAL_CHARS.toLocaleString("en-US")} characters
          </p>
          {v.goalError && (
            <p data-testid="field-error" className="mt-1 text-xs text-red-700">
              {v.goalError}
            </p>
          )}
        </div>
      )}
    </fieldset>
  );
}
