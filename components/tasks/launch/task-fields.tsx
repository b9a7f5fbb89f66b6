"use client";

import { cn } from "@/components/ui/cn.ts";
import { MAX_GOAL_CHARS } from "@/lib/contracts/limits.ts";
import type { LaunchFormState } from "./use-launch-form.ts";
import { field, label } from "./styles.ts";

/** What the agent should do: the demo (kind, package limit) or a goal of one's own, with its counter. Fixed when launching from a template. */
export function TaskFields({ f }: { f: LaunchFormState }) {
  const { demo, v } = f;
  return (
    <fieldset disabled={f.fromTemplate} className="space-y-6 disabled:opacity-70">
      <fieldset>
        <legend className={label}>What should the agent do?</legend>
        <div className="mt-2 grid grid-cols-2 gap-3">
          {(["demo", "goal"] as const).map((m) => (
            <label
              key={m}
              className={cn("cursor-pointer rounded-md border p-3 text-sm", f.mode === m ? "border-zinc-900 ring-1 ring-zinc-900" : "border-zinc-300")}
            >
              <input type="radio" name="mode" value={m} checked={f.mode === m} onChange={() => f.setMode(m)} className="mr-2" />
              {m === "demo" ? (demo?.title ?? "Demo: license audit") : "A goal of my own"}
              {m === "demo" && <span className="mt-1 block text-xs text-zinc-500">{demo?.description}</span>}
            </label>
          ))}
        </div>
      </fieldset>

      {f.mode === "demo" ? (
        <div>
          {f.demos.length > 1 && (
            <div className="mb-4">
              <label htmlFor="demo-kind" className={label}>
                Demo
              </label>
              <select id="demo-kind" className={field} value={f.demoKind} onChange={(e) => f.setDemoKind(e.target.value as typeof f.demoKind)}>
                {f.demos.map((d) => (
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
