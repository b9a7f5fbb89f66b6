/**
 * Where a profile or MCP server managed as code comes from (CodeManaged.source), in the words the
 * admin page, the refusals and the CLI share. Client-safe.
 */

/** The `source` of what Longhaul's own seed writes at every start. */
export const SEED_SOURCE = "seed";
/** The `source` of a document applied through the API without naming its file. */
export const API_SOURCE = "api";

/** `the file ops/profiles.yaml`, `Longhaul's seed (written again at every start)`, or `a document applied through the API`. */
export function describeCodeSource(source: string): string {
  if (source === SEED_SOURCE) return "Longhaul's seed (written again at every start)";
  if (source === API_SOURCE) return "a document applied through the API";
  return `the file ${source}`;
}
