"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { Field, inputClass } from "@/components/ui/field.tsx";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";

/** The start form's fields as the API names them (eval.start), in the form's words. */
const EVAL_FIELDS: FieldLabels = { suite: "Suite", profiles: "Profiles", "profiles.*": "Profiles", repeats: "Repeats", concurrency: "Concurrency" };

/** The start form of /evals: suite, profiles (at least one), repeats, concurrency; opens the run's report once started. */
export function StartEvalForm({ suites }: { suites: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const profiles = useQuery(trpc.profile.list.queryOptions());
  const [suite, setSuite] = useState(suites[0] ?? "");
  const [chosen, setChosen] = useState<string[]>([]);
  const [repeats, setRepeats] = useState(1);
  const [concurrency, setConcurrency] = useState(4);
  const status = useActionStatus(EVAL_FIELDS);
  const start = useMutation(
    trpc.eval.start.mutationOptions({ onMutate: status.start, onError: status.fail, onSuccess: (r) => router.push(`/evals/runs/${r.evalRunId}`) }),
  );
  return (
    <form
      className="flex flex-wrap items-end gap-4 rounded-lg border border-zinc-200 bg-white p-4"
      aria-label="Start an eval run"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate({ suite, profiles: chosen, repeats, concurrency });
      }}
    >
      <Field label="Suite">
        <select
          className={inputClass}
          value={suite}
          onChange={(e) => {
            setSuite(e.target.value);
            status.edited("suite");
          }}
        >
          {suites.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </Field>
      <fieldset className="flex flex-col gap-1">
        <legend className="text-xs font-medium text-zinc-600">Profiles</legend>
        <div className="flex flex-wrap gap-3">
          {(profiles.data ?? []).map((p) => (
            <label key={p.name} className="flex items-center gap-1 text-sm">
              <input
                type="checkbox"
                checked={chosen.includes(p.name)}
                onChange={(e) => {
                  const on = e.target.checked;
                  setChosen((c) => (on ? [...c, p.name] : c.filter((x) => x !== p.name)));
                  status.edited("profiles");
                }}
              />
              {p.name}
            </label>
          ))}
        </div>
      </fieldset>
      <Field label="Repeats">
        <input
          className={`${inputClass} w-20`}
          type="number"
          min={1}
          max={20}
          value={repeats}
          onChange={(e) => {
            setRepeats(Number(e.target.value));
            status.edited("repeats");
          }}
        />
      </Field>
      <Field label="Concurrency">
        <input
          className={`${inputClass} w-20`}
          type="number"
          min={1}
          max={50}
          value={concurrency}
          onChange={(e) => {
            setConcurrency(Number(e.target.value));
            status.edited("concurrency");
          }}
        />
      </Field>
      <button
        type="submit"
        disabled={start.isPending || chosen.length === 0}
        className="rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white disabled:opacity-50"
      >
        {start.isPending ? "Starting…" : "Start eval run"}
      </button>
      <StatusLine line={status.line} className="w-full" testId="eval-start" />
    </form>
  );
}
