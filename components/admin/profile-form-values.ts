import { BUILTIN_TOOL_NAMES } from "../../lib/contracts/profile.ts";

/**
 * The admin profile form's values (strings and booleans, as the inputs hold them) and their mapping to
 * and from a profile spec (server/domain/profile-spec.ts, validated on the server). Fields the form
 * does not show (MCP selections, egress, escalation chain…) are kept from the profile being edited.
 * Pure, client-safe.
 */
export const TEXT_FIELDS = ["name", "description", "baseUrl", "model", "apiKeyEnv", "systemPrompt", "escalationRole"] as const;
export const NUMBER_FIELDS = [
  "contextWindow",
  "stepBudget",
  "tokenBudget",
  "costBudgetUsd",
  "inputPricePerMTok",
  "cachedPricePerMTok",
  "outputPricePerMTok",
  "checkpointEverySteps",
  "stallSteps",
  "escalationDueMinutes",
] as const;
/** Text fields sent exactly as written, whitespace included. */
const VERBATIM = new Set<string>(["systemPrompt"]);
/** Number fields that may be left empty (= none / the price package's). */
const NULLABLE = new Set(["tokenBudget", "costBudgetUsd", "inputPricePerMTok", "cachedPricePerMTok", "outputPricePerMTok", "baseUrl", "apiKeyEnv"]);

export type ProfileFormValues = Record<(typeof TEXT_FIELDS)[number] | (typeof NUMBER_FIELDS)[number] | "provider" | "headers", string> & {
  tools: string[];
  /** Names of the MCP servers the profile picks (each entry's tool subset, if any, is kept from the spec). */
  mcpServers: string[];
  requireApproval: boolean;
};

type McpEntry = { server: string } & Record<string, unknown>;
function mcpEntries(spec: Spec | null): McpEntry[] {
  const list = spec?.mcpServers;
  return Array.isArray(list) ? list.filter((e): e is McpEntry => typeof (e as { server?: unknown })?.server === "string") : [];
}

/** A profile spec as the form handles it (validated by the server). */
export type FormSpec = Record<string, unknown> & { name?: string };
type Spec = FormSpec;

/** Form values of a stored spec (or the empty form of a new profile). */
export function valuesOf(spec: Spec | null): ProfileFormValues {
  const text = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");
  const out = { provider: text(spec?.provider ?? "openai") } as ProfileFormValues;
  for (const f of [...TEXT_FIELDS, ...NUMBER_FIELDS]) out[f] = text(spec?.[f]);
  out.headers = Object.entries((spec?.headers as Record<string, string> | undefined) ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
  out.tools = (spec?.tools as string[] | undefined) ?? ["list_files", "read_file", "search_files", "record_fact", "finish", "declare_dead_end"];
  out.mcpServers = mcpEntries(spec).map((e) => e.server);
  out.requireApproval = spec?.requireApproval === true;
  return out;
}

/**
 * The spec to send: `base` (the edited profile's, or none) with the form's fields over it. Blank
 * optional fields → null or the default. A form saved without a change gives back `base`'s content
 * (the system prompt byte for byte, the tools in their stored order), so the save makes no version.
 */
export function specOf(values: ProfileFormValues, base: Spec | null): Spec {
  const spec: Record<string, unknown> = { ...(base ?? {}) };
  for (const f of TEXT_FIELDS) {
    // The prompt is kept exactly as written (a YAML block keeps its final newline): trimming it made
    // an unchanged profile a new version that differed from its file.
    const v = VERBATIM.has(f) ? values[f] : values[f].trim();
    if (v.trim()) spec[f] = v;
    else if (NULLABLE.has(f)) spec[f] = null;
    else delete spec[f];
  }
  for (const f of NUMBER_FIELDS) {
    const v = values[f].trim();
    if (v) spec[f] = Number(v);
    else if (NULLABLE.has(f)) spec[f] = null;
    else delete spec[f];
  }
  spec.provider = values.provider;
  spec.headers = Object.fromEntries(
    values.headers
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => {
        const at = l.indexOf(":");
        return at < 0 ? [l, ""] : [l.slice(0, at).trim(), l.slice(at + 1).trim()];
      }),
  );
  // The stored order first (a file's order is the profile's), then newly ticked tools in the list's order.
  const stored = Array.isArray(base?.tools) ? (base.tools as unknown[]).filter((t): t is string => typeof t === "string") : [];
  spec.tools = [...stored.filter((t) => values.tools.includes(t)), ...BUILTIN_TOOL_NAMES.filter((t) => values.tools.includes(t) && !stored.includes(t))];
  const kept = new Map(mcpEntries(base).map((e) => [e.server, e]));
  spec.mcpServers = values.mcpServers.map((server) => kept.get(server) ?? { server });
  spec.requireApproval = values.requireApproval;
  return spec;
}

/**
 * The server's refusal split by field: each line "field: problem" (or "field.sub: …", "profiles[0] …")
 * under its top-level field; lines naming no form field under "". Source: the messages of
 * profileSpecSchema, one per line.
 */
export function errorsByField(message: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of message.split("\n")) {
    const field = /^([A-Za-z]+)[.[:]/.exec(line)?.[1] ?? "";
    out[field] = out[field] ? `${out[field]}; ${line}` : line;
  }
  return out;
}
