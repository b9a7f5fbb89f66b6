/** Dollars with the precision a small figure needs (below a cent: 6 places). */
export const usdFigure = (x: number | null) => (x === null ? "—" : `$${x.toFixed(x < 0.01 ? 6 : 4)}`);
/** A whole count, grouped ("1,234"). */
export const countFigure = (x: number | null) => (x === null ? "—" : Math.round(x).toLocaleString("en-US"));

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
