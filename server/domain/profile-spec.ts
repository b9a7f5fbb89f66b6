import { z } from "zod";
import { mcpSelectionsSchema } from "../../lib/contracts/mcp.ts";
import { BUILTIN_TOOL_NAMES, ENV_NAME, PROFILE_NAME, PROFILE_PROVIDERS } from "../../lib/contracts/profile.ts";
import { parseEmailAllowEntry, parseHttpAllowEntry } from "../../lib/contracts/egress.ts";
import { textField } from "./input-fields.ts";
import { isRole, ROLES } from "../../lib/contracts/roles.ts";
import { assigneeUser, USER_ASSIGNEE_PREFIX } from "../../lib/contracts/escalation.ts";
import { EFFORT_LEVELS, EFFORT_SITUATIONS, RECOMMENDED_EFFORT_RULES, type EffortPolicy } from "../../lib/contracts/effort.ts";

/**
 * An agent profile's content as an admin writes it (browser form, API, `profiles apply` file) and as
 * a version snapshot stores it (server/db/sql/profile-versions.sql): the AgentProfile columns by
 * their own names (prisma/schema/longhaul.prisma documents each), every field but `name` and `model`
 * optional with the column's default. Every message names the field and its limit, so
 * whoever wrote the profile can fix it without reading code.
 */

/** Largest price per million tokens accepted, USD (the dearest models in genai-prices are far below). */
export const MAX_PRICE_PER_MTOK = 10_000;
/** Most characters of a profile's system prompt. */
export const MAX_SYSTEM_PROMPT_CHARS = 20_000;
/** Most extra headers on one profile. */
export const MAX_HEADERS = 20;
/** Header names whose value is a secret: it must come from the environment (`${NAME}`), never literally. */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "api-key", "x-api-key", "cookie"]);
/** A header value that is only references to environment variables: `${NAME}` (optionally after a scheme word like `Bearer `). */
const ENV_REFERENCE_ONLY = /^(?:[A-Za-z]+ )?\$\{[A-Za-z_][A-Za-z0-9_]{0,127}\}$/;

const int = (field: string, min: number, max: number) =>
  z.number(`${field}: must be a number`).int(`${field}: must be a whole number`).min(min, `${field}: at least ${min}`).max(max, `${field}: at most ${max}`);
/** A money or price figure: non-negative, at most `max`, rounded to the column's 6 decimals. */
const usd = (field: string, max: number) =>
  z
    .number(`${field}: must be a number`)
    .min(0, `${field}: must not be negative`)
    .max(max, `${field}: at most ${max}`)
    .transform((v) => Math.round(v * 1e6) / 1e6);

/** Most entries in one of a profile's egress allow-lists. */
export const MAX_EGRESS_ENTRIES = 200;

/** An allow-list field: at most {@link MAX_EGRESS_ENTRIES} entries, each parsed by `parse` (its error names the field and the entry); blanks dropped, duplicates merged. */
export function allowList(field: string, parse: (raw: string) => { value: string } | { error: string }) {
  return z
    .array(textField(`${field}[]`, 320), `${field}: a list of strings`)
    .max(MAX_EGRESS_ENTRIES, `${field}: at most ${MAX_EGRESS_ENTRIES} entries`)
    .transform((entries, ctx) => {
      const out: string[] = [];
      for (const raw of entries.filter(Boolean)) {
        const parsed = parse(raw);
        if ("error" in parsed) ctx.addIssue({ code: "custom", message: `${field}: ${parsed.error}` });
        else out.push(parsed.value);
      }
      return [...new Set(out)];
    });
}

const baseUrlField = z
  .string("baseUrl: must be a URL string or null")
  .trim()
  .max(2000, "baseUrl: at most 2000 characters")
  .refine((v) => URL.canParse(v) && ["http:", "https:"].includes(new URL(v).protocol), "baseUrl: must be an http(s) URL (e.g. http://127.0.0.1:11434/v1)")
  .transform((v) => v.replace(/\/+$/, ""));

const toolName = z.string("tools[]: must be a tool name").refine((v) => (BUILTIN_TOOL_NAMES as readonly string[]).includes(v), {
  error: (issue) => `tools: unknown tool ${JSON.stringify(issue.input)}; built-in tools: ${BUILTIN_TOOL_NAMES.join(", ")}`,
});

const headersField = z
  .record(
    z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "headers: a header name is 1–100 letters, digits and -"),
    z.string("headers: a value must be a string").max(4000, "headers: a value is at most 4000 characters"),
    "headers: an object of header name → value",
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > MAX_HEADERS) ctx.addIssue({ code: "custom", message: `headers: at most ${MAX_HEADERS} headers` });
    for (const name of names) {
      if (SECRET_HEADERS.has(name.toLowerCase()) && !ENV_REFERENCE_ONLY.test(headers[name] ?? "")) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `headers.${name}: a secret is never stored; write the variable that holds it, e.g. "Bearer \${MY_TOKEN}"`,
        });
      }
    }
  });

const levelModel = (level: string) =>
  textField(`effort.models.${level}`, 200).pipe(z.string().min(1, `effort.models.${level}: a model name, or leave the level out`));
const effortLevel = (field: string) => z.enum(EFFORT_LEVELS, `${field}: one of ${EFFORT_LEVELS.join(", ")}`);

/**
 * A profile's effort policy (lib/contracts/effort.ts): `default` (the level of a turn no rule applies
 * to; medium when left out), `rules` (situation → level; left out = the recommended rules, high where
 * a mistake is costly and low for mechanical turns; `{}` = always `default`), `models` (level → the
 * model to call at that level, e.g. a cheaper one for low). Unknown keys are refused with the field named.
 */
export const effortPolicySchema = z.strictObject(
  {
    default: effortLevel("effort.default").default("medium"),
    rules: z
      .strictObject(
        Object.fromEntries(EFFORT_SITUATIONS.map((k) => [k, effortLevel(`effort.rules.${k}`).optional()])) as Record<
          (typeof EFFORT_SITUATIONS)[number],
          z.ZodOptional<ReturnType<typeof effortLevel>>
        >,
        {
          error: (i) =>
            i.code === "unrecognized_keys"
              ? `effort.rules: unknown situation(s) ${i.keys.join(", ")}; situations: ${EFFORT_SITUATIONS.join(", ")}`
              : "effort.rules: an object of situation → level",
        },
      )
      .optional()
      .transform((r) => Object.fromEntries(Object.entries(r ?? RECOMMENDED_EFFORT_RULES).filter(([, v]) => v !== undefined)) as EffortPolicy["rules"]),
    models: z
      .strictObject(
        Object.fromEntries(EFFORT_LEVELS.map((l) => [l, levelModel(l).optional()])) as Record<
          (typeof EFFORT_LEVELS)[number],
          z.ZodOptional<ReturnType<typeof levelModel>>
        >,
        {
          error: (i) =>
            i.code === "unrecognized_keys"
              ? `effort.models: unknown level(s) ${i.keys.join(", ")}; levels: ${EFFORT_LEVELS.join(", ")}`
              : "effort.models: an object of level → model",
        },
      )
      .default({})
      .transform((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as EffortPolicy["models"]),
  },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `effort: unknown field(s) ${i.keys.join(", ")}; fields: default, rules, models`
        : "effort: an object {default, rules, models}, or null",
  },
) satisfies z.ZodType<EffortPolicy, unknown>;

/** The fields of a profile, each with its default (the AgentProfile column default). */
export const profileSpecShape = {
  name: z.string("name: required").trim().regex(PROFILE_NAME, "name: 1–63 characters of a-z, 0-9, . _ - (starting with a letter or digit)"),
  description: textField("description", 2000).default(""),
  provider: z.enum(PROFILE_PROVIDERS, `provider: one of ${PROFILE_PROVIDERS.join(", ")}`).default("openai"),
  baseUrl: baseUrlField.nullable().default(null),
  model: textField("model", 200).pipe(z.string().min(1, "model: required (the model name as the provider knows it)")),
  apiKeyEnv: z
    .string("apiKeyEnv: the name of an environment variable, or null")
    .trim()
    .regex(ENV_NAME, "apiKeyEnv: the NAME of the environment variable holding the key (letters, digits, _), never the key itself")
    .nullable()
    .default(null),
  headers: headersField.default({}),
  tools: z
    .array(toolName, "tools: a list of built-in tool names")
    .max(BUILTIN_TOOL_NAMES.length, `tools: at most ${BUILTIN_TOOL_NAMES.length}`)
    .transform((t) => [...new Set(t)])
    .default([]),
  mcpServers: mcpSelectionsSchema.default([]),
  stepBudget: int("stepBudget", 1, 100_000).default(200),
  tokenBudget: int("tokenBudget", 1, 2_000_000_000).nullable().default(null),
  costBudgetUsd: usd("costBudgetUsd", 1_000_000).nullable().default(null),
  contextWindow: int("contextWindow", 1024, 10_000_000).default(128_000),
  checkpointEverySteps: int("checkpointEverySteps", 1, 10_000).default(40),
  expensiveStepUsd: usd("expensiveStepUsd", 1_000).nullable().default(null),
  saturationRatio: z
    .number("saturationRatio: must be a number")
    .min(0.1, "saturationRatio: at least 0.1")
    .max(0.95, "saturationRatio: at most 0.95")
    .default(0.7),
  autoResumeMax: int("autoResumeMax", 0, 20).default(2),
  stallSteps: int("stallSteps", 1, 1000).default(5),
  stallGraceSteps: int("stallGraceSteps", 0, 1000).default(3),
  escalationRole: escalationRoleField("escalationRole").default("handler"),
  escalationDueMinutes: int("escalationDueMinutes", 1, 10_080).default(60),
  escalationChain: z
    .array(escalationChainEntryField("escalationChain[]"), "escalationChain: a list of roles or user:<display name> entries")
    .max(10, "escalationChain: at most 10 entries")
    .default([]),
  requireApproval: z.boolean("requireApproval: true or false").default(false),
  egressEmailAllow: allowList("egressEmailAllow", parseEmailAllowEntry).default([]),
  egressHttpAllow: allowList("egressHttpAllow", parseHttpAllowEntry).default([]),
  egressOnBreach: z.enum(["escalate", "refuse"], "egressOnBreach: escalate, refuse or null").nullable().default(null),
  inputPricePerMTok: usd("inputPricePerMTok", MAX_PRICE_PER_MTOK).nullable().default(null),
  cachedPricePerMTok: usd("cachedPricePerMTok", MAX_PRICE_PER_MTOK).nullable().default(null),
  outputPricePerMTok: usd("outputPricePerMTok", MAX_PRICE_PER_MTOK).nullable().default(null),
  cacheWritePricePerMTok: usd("cacheWritePricePerMTok", MAX_PRICE_PER_MTOK).nullable().default(null),
  systemPrompt: z
    .string("systemPrompt: must be text")
    .max(MAX_SYSTEM_PROMPT_CHARS, {
      error: (i) => `systemPrompt: at most ${MAX_SYSTEM_PROMPT_CHARS} characters (got ${typeof i.input === "string" ? i.input.length : "more"})`,
    })
    .default(""),
  /** The effort dial: null = no effort is decided (nothing sent: the provider's default). */
  effort: effortPolicySchema.nullable().default(null),
};

/**
 * A role an escalation can be routed to: one of the roles an admin can grant (lib/contracts/roles.ts
 * ROLES), so an escalation never waits on a role no one can hold ("Escalations reach a
 * person": a chain to "team-lead" reached nobody). Refused with the field named:
 * `escalationChain[]: "team-lead" is not a role; use one of operator, handler, manager, admin`.
 */
function escalationRoleField(field: string) {
  return textField(field, 50).refine((v): boolean => isRole(v), {
    error: (i) => `${field}: ${JSON.stringify(i.input)} is not a role; use one of ${ROLES.join(", ")}`,
  });
}

/**
 * One entry of an escalation chain: a role ({@link escalationRoleField}) or a named person,
 * `user:<display name>` (lib/contracts/escalation.ts USER_ASSIGNEE_PREFIX: a chain
 * names roles or people). The name's form is checked here; that such a user exists and is not
 * deactivated is checked when the profile is saved (server/db/profile-repository.ts), where the
 * users are. Refused with the field named:
 * `escalationChain[]: "team-lead" is not a role; use one of operator, handler, manager, admin, or user:<display name>`.
 */
function escalationChainEntryField(field: string) {
  return textField(field, 120).refine((v): boolean => (v.startsWith(USER_ASSIGNEE_PREFIX) ? (assigneeUser(v) ?? "").length > 0 : isRole(v)), {
    error: (i) =>
      typeof i.input === "string" && i.input.startsWith(USER_ASSIGNEE_PREFIX)
        ? `${field}: "user:" must be followed by a user's display name`
        : `${field}: ${JSON.stringify(i.input)} is not a role; use one of ${ROLES.join(", ")}, or user:<display name>`,
  });
}

/** A profile as written: unknown fields refused (a typo must not be silently ignored). */
export const profileSpecSchema = z.strictObject(profileSpecShape, {
  error: (i) => (i.code === "unrecognized_keys" ? `unknown field(s) ${i.keys.join(", ")}` : "a profile must be an object"),
});
export type ProfileSpec = z.infer<typeof profileSpecSchema>;
export type ProfileSpecInput = z.input<typeof profileSpecSchema>;

/**
 * A version snapshot read back (agent_profile_version.snapshot, written by PostgreSQL's to_jsonb):
 * the same fields, lenient about columns added later (ignored) and filled with defaults for missing ones.
 */
export const profileSnapshotSchema = z.object({
  name: z.string(),
  description: z.string().default(""),
  provider: z.enum(PROFILE_PROVIDERS).catch("openai"),
  baseUrl: z.string().nullable().default(null),
  model: z.string(),
  apiKeyEnv: z.string().nullable().default(null),
  headers: z.record(z.string(), z.string()).default({}),
  tools: z.array(z.string()).default([]),
  mcpServers: mcpSelectionsSchema.default([]),
  stepBudget: z.number().int().default(200),
  tokenBudget: z.number().int().nullable().default(null),
  costBudgetUsd: z.number().nullable().default(null),
  contextWindow: z.number().int().default(128_000),
  checkpointEverySteps: z.number().int().default(40),
  expensiveStepUsd: z.number().nullable().default(null),
  saturationRatio: z.number().default(0.7),
  autoResumeMax: z.number().int().default(2),
  stallSteps: z.number().int().default(5),
  stallGraceSteps: z.number().int().default(3),
  escalationRole: z.string().default("operator"),
  escalationDueMinutes: z.number().int().default(60),
  escalationChain: z.array(z.string()).default([]),
  requireApproval: z.boolean().default(false),
  egressEmailAllow: z.array(z.string()).default([]),
  egressHttpAllow: z.array(z.string()).default([]),
  egressOnBreach: z.enum(["escalate", "refuse"]).nullable().catch(null),
  inputPricePerMTok: z.number().nullable().default(null),
  cachedPricePerMTok: z.number().nullable().default(null),
  outputPricePerMTok: z.number().nullable().default(null),
  cacheWritePricePerMTok: z.number().nullable().default(null),
  systemPrompt: z.string().default(""),
  effort: effortPolicySchema.nullable().catch(null).default(null),
}) satisfies z.ZodType<ProfileSpec, unknown>;

/** The fields `diffProfileSpecs` compares (all but `name`), in schema order. */
export const PROFILE_FIELDS = Object.keys(profileSpecShape).filter((k) => k !== "name") as (keyof ProfileSpec)[];

/** One changed field of a profile: its stored and its new value (JSON values). */
export interface ProfileFieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** Key-sorted JSON, so two values that mean the same compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/**
 * The fields that differ between the stored profile `from` (null = it does not exist yet: every
 * field that is not its default counts) and the new one `to`, both already parsed. Empty = applying
 * `to` changes nothing. Pure.
 */
export function diffProfileSpecs(from: ProfileSpec | null, to: ProfileSpec): ProfileFieldChange[] {
  const base = from ?? profileSpecSchema.parse({ name: to.name, model: to.model });
  const changes: ProfileFieldChange[] = [];
  for (const field of PROFILE_FIELDS) {
    if (from === null && (field === "model" || canonical(base[field]) !== canonical(to[field]))) {
      changes.push({ field, from: null, to: to[field] });
    } else if (from !== null && canonical(base[field]) !== canonical(to[field])) {
      changes.push({ field, from: base[field], to: to[field] });
    }
  }
  return changes;
}
