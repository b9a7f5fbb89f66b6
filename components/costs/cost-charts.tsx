"use client";

import { Bar, BarChart, CartesianGrid, LabelList, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { CAUSES, money } from "./cost-labels.ts";

/** One bucket of the charts: its key (YYYY-MM-DD), the mean cost per completed task, and spend per cause. */
export type PeriodPoint = { key: string; costPerCompleted: number | null; label: string } & Record<string, number | string | null>;

const axisUsd = (v: number) => `$${v.toFixed(3)}`;

/**
 * The two charts of /costs side by side (stacked below xl): the mean cost per completed task over
 * launch days or weeks, and the spend by cause (click a bar to filter to its bucket). Each is an
 * image with a name for screen readers; the tables below carry the same figures.
 */
export function CostCharts({ periods, bucket, onBucket }: { periods: PeriodPoint[]; bucket: "day" | "week"; onBucket: (key: string) => void }) {
  return (
    <div className="mb-6 grid gap-6 xl:grid-cols-2">
      <section aria-label="Cost per completed task over time" className="min-w-0 rounded-lg border border-zinc-200 bg-white p-4">
        <h2 className="mb-2 text-sm font-semibold">Cost per completed task (mean), by launch {bucket}</h2>
        <div
          className="h-64"
          data-testid="chart-cpc"
          role="img"
          aria-label={`Line chart: mean cost per completed task by launch ${bucket}; the same figures are in the table by ${bucket} below`}
        >
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={periods} margin={{ top: 20, right: 24, left: 8, bottom: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
              <XAxis dataKey="key" tick={{ fontSize: 11 }} />
              <YAxis tick={{ fontSize: 11 }} tickFormatter={axisUsd} width={64} />
              <Tooltip formatter={(v) => money(typeof v === "number" ? v : null)} />
              <Line
                type="monotone"
                dataKey="costPerCompleted"
                name="Cost per completed task (mean)"
                stroke="#18181b"
                strokeWidth={2}
                isAnimationActive={false}
                connectNulls
              >
                <LabelList dataKey="label" position="top" className="cpc-label" style={{ fontSize: 10, fill: "#3f3f46" }} />
              </Line>
            </LineChart>
          </ResponsiveContainer>
        </div>
      </section>
      <section aria-label="Spend by cause" className="min-w-0 rounded-lg border border-zinc-200 bg-white p-4">
        <h2 className="mb-2 text-sm font-semibold">
          Spend by cause, by launch {bucket} <span className="font-normal text-zinc-500">(click a bar to filter)</span>
        </h2>
        <div
          className="h-64"
          data-testid="chart-causes"
          role="img"
          aria-label={`Stacked bar chart: spend by cause by launch ${bucket}; the same figures are in the table by ${bucket} below`}
        >
          <ResponsiveContainer width="100%" height="100%">
            <BarChart
              data={periods}
              margin={{ top: 8, right: 8, left: 8, bottom: 0 }}
              onClick={(state) => {
                const key = typeof state?.activeLabel === "string" ? state.activeLabel : null;
                if (key) onBucket(key);
              }}
            >
              <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" />
              <XAxis dataKey="key" tick={{ fontSize: 11 }} />
              <YAxis tick={{ fontSize: 11 }} tickFormatter={axisUsd} width={64} />
              <Tooltip formatter={(v) => money(typeof v === "number" ? v : null)} />
              <Legend wrapperStyle={{ fontSize: 11 }} />
              {CAUSES.map((c) => (
                <Bar key={c.key} dataKey={c.key} name={c.label} stackId="spend" fill={c.color} isAnimationActive={false} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      </section>
    </div>
  );
}
