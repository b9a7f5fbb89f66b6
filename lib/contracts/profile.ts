/**
 * Agent profiles as the browser, the API and `profiles apply` files name them (issue 16). Client-safe
 * constants; the validating schema is server/domain/profile-spec.ts `profileSpecSchema`.
 */

/** The built-in tools a profile may list (server/tools/registry.ts builtinToolNames; a unit test keeps them equal). */
export const BUILTIN_TOOL_NAMES = [
  "list_files",
  "read_file",
  "search_files",
  "record_fact",
  "read_reference",
  "write_artifact",
  "send_email",
  "http_post",
  "complete_phase",
  "request_human",
  "finish",
  "declare_dead_end",
] as const;

/**
 * Provider kinds: `openai` — any OpenAI-compatible Chat Completions server (its base URL, else
 * OPENAI_BASE_URL, else OpenAI itself); `scripted` — always the local scripted model server.
 */
export const PROFILE_PROVIDERS = ["openai", "scripted"] as const;
export type ProfileProvider = (typeof PROFILE_PROVIDERS)[number];

/** A profile name: 1–63 characters of a-z, 0-9, `.`, `_`, `-`, starting with a letter or digit. */
export const PROFILE_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** An environment variable name (POSIX: letters, digits, `_`, not starting with a digit), at most 128 characters. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** How `profile.testConnection` ended, in words a person can act on. */
export type ConnectionTestResult =
  | { ok: true; model: string; baseUrl: string; latencyMs: number }
  | { ok: false; kind: "unreachable" | "unauthorized" | "unknown_model" | "missing_key" | "error"; message: string; baseUrl: string };
