/** Dollars with the places a figure needs: cents from $1, 4 places below, 6 below a cent ("—" for none). */
export const usdFigure = (x: number | null) => (x === null ? "—" : `$${x.toFixed(x === 0 || x >= 1 ? 2 : x < 0.01 ? 6 : 4)}`);
/** A count, grouped, with at most one decimal (a percentile may fall between two tasks): "1,234", "24.5". */
export const countFigure = (x: number | null) => (x === null ? "—" : x.toLocaleString("en-US", { maximumFractionDigits: 1 }));

/**
 * What similar completed tasks took: median and p90 of dollars and of steps (the budget's steps,
 * lib/contracts/step-count.ts), as one row of four figures — shared by the launch form's estimate
 * (task.estimateLaunch) and a template's history (template.history) so both read alike.
 */
export function SimilarTaskFigures({
  figures,
}: {
  figures: { costP50Usd: number | null; costP90Usd: number | null; stepsP50: number | null; stepsP90: number | null };
}) {
  const tiles: [string, string][] = [
    ["Cost median", usdFigure(figures.costP50Usd)],
    ["Cost p90", usdFigure(figures.costP90Usd)],
    ["Steps median", countFigure(figures.stepsP50)],
    ["Steps p90", countFigure(figures.stepsP90)],
  ];
  return (
    <dl className="mt-1 grid grid-cols-2 gap-2 text-xs text-zinc-600 sm:grid-cols-4">
      {tiles.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd className="tabular-nums text-zinc-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
