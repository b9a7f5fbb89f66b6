import { z } from "zod";
import { rawEnv } from "./env-source.ts";
import { EGRESS_ON_BREACH, emailAllowListSchema, httpAllowListSchema } from "../lib/contracts/egress.ts";

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);

/**
 * Longhaul's environment, validated at boot (create-t3-app's habit): a bad value fails fast with the
 * variable's name. Every variable is listed in docs/OPERATING.md ("Environment"; npm run docs:check holds the two together).
 */
export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** Web (Next.js) port. */
  PORT: port(3000),
  /**
   * Most bytes of a request's line and headers the web app reads (scripts/lib/http-limits.cjs): a
   * longer request is answered at once, 414 for a long URL, 431 for long headers.
   */
  WEB_MAX_HEADER_BYTES: z.coerce.number().int().min(1024).max(65_536).default(8000),
  /** Embedded executor port (Inngest dev server's port). */
  EXECUTOR_PORT: port(8288),
  /** Scripted model server port. */
  MODEL_PORT: port(8787),
  /** Embedded PostgreSQL port (only when DATABASE_URL is unset). */
  EMBEDDED_PG_PORT: port(54329),
  /** Any PostgreSQL; unset = embedded PostgreSQL under DATA_DIR/postgres. */
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default(".data"),
  /** Inngest: the executor's origin (embedded default) or self-hosted `inngest start`. */
  INNGEST_BASE_URL: z.string().url().optional(),
  INNGEST_SIGNING_KEY: z
    .string()
    .regex(/^(signkey-[a-z]+-)?[0-9a-f]+$/i, "hex, optionally prefixed signkey-<env>-")
    .optional(),
  INNGEST_EVENT_KEY: z.string().min(1).optional(),
  INNGEST_DEV: z.string().optional(),
  /** Real model provider; unset = the scripted model server on MODEL_PORT. */
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  /** Anthropic's key and base URL (default https://api.anthropic.com), for profiles with provider `anthropic`. */
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.string().url().optional(),
  /** Default folder the read-only file tools read (the demo audits its node_modules). */
  LONGHAUL_WORKSPACE: z.string().optional(),
  /**
   * Pause between two ticks of an eval run (an Inngest duration: "1s", "2s", "1m"); tests and
   * benchmarks shorten it. At least 1 s: the Inngest SDK rounds a shorter durable sleep up to 1 s.
   */
  LONGHAUL_EVAL_TICK: z
    .string()
    .regex(/^\d+(ms|s|m)$/, "LONGHAUL_EVAL_TICK: a duration like 1s, 2s or 1m")
    .refine((v) => !v.endsWith("ms") || Number(v.slice(0, -2)) >= 1000, "LONGHAUL_EVAL_TICK: at least 1s (Inngest rounds a shorter durable sleep up to 1s)")
    .default("2s"),
  /** Folders a launch's workspace must lie in, comma-separated absolute paths (default: LONGHAUL_WORKSPACE alone). */
  LONGHAUL_WORKSPACE_ROOTS: z
    .string()
    .refine((v) => v.split(",").every((p) => !p.trim() || p.trim().startsWith("/")), "comma-separated absolute paths, e.g. /srv/data,/home/me/projects")
    .optional(),
  /** Executor retry backoff table, milliseconds, comma-separated (default: Inngest's 15 s … 2 h). */
  EXECUTOR_BACKOFF_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'comma-separated milliseconds, e.g. "50,100,200"')
    .optional(),
  /** Public URL of the web app (links in notifications). */
  APP_URL: z.string().url().optional(),
  /** Egress policy (server/domain/egress-policy.ts): origins http_post may reach without approval, comma-separated; unset = none. */
  LONGHAUL_HTTP_ALLOW: httpAllowListSchema.optional(),
  /** Egress policy: recipient domains (example.com, *.example.com) and addresses send_email may reach without approval; unset = example.com; "none" = none. */
  LONGHAUL_EMAIL_ALLOW: emailAllowListSchema.optional(),
  /** Egress policy: a call outside it escalates for approval (default) or is refused. */
  LONGHAUL_EGRESS_ON_BREACH: z.enum(EGRESS_ON_BREACH).optional(),
  /** Fault injection for tests: `<point>[@n][,<point>…]` (server/fault-injection.ts); unset = off. */
  LONGHAUL_CRASH_AT: z
    .string()
    .regex(
      /^[a-z0-9:_-]+(@[1-9][0-9]*)?(,[a-z0-9:_-]+(@[1-9][0-9]*)?)*$/i,
      "comma-separated crash points, each optionally @n, e.g. executor:after-step-saved@2",
    )
    .optional(),
  /** How long a due escalation decision may stay unapplied before the web app's recovery sweep applies it, ms. */
  LONGHAUL_RECOVERY_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).default(30_000),
  /** First wait before the recovery sweep applies again a decision whose application failed for good, ms (doubles per failure, at most 1 h). */
  LONGHAUL_RECOVERY_RETRY_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Tasks a batch operation (resume or cancel many) works on at once, across all batches: batch-item's concurrency limit. */
  LONGHAUL_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  /** Webhook (JSON, Slack-compatible) told of every escalation and every overdue reminder. */
  LONGHAUL_WEBHOOK_URL: z.string().url().optional(),
  /** Email for escalations (server/notify/email.ts): nodemailer's SMTP connection URL, smtp:// or smtps:// (user and password in it); unset = no email. */
  SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\/[^/\s]+/i.test(v), "SMTP_URL: an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587")
    .optional(),
  /** Sender of those emails (an address, or "Name <address>"). */
  LONGHAUL_MAIL_FROM: z.string().min(3).max(200).default("Longhaul <longhaul@localhost>"),
  /** Signs session cookies (better-auth); npm start generates one into DATA_DIR/auth-secret when unset. */
  BETTER_AUTH_SECRET: z.string().min(32, "at least 32 characters (e.g. `openssl rand -hex 32`)").optional(),
  /** Public origin of the web app for sign-in (cookies are Secure when it is https); default APP_URL, else http://127.0.0.1:$PORT. */
  BETTER_AUTH_URL: z.string().url().optional(),
  /** More origins allowed to post to the app with a session (comma-separated), e.g. a second hostname. */
  BETTER_AUTH_TRUSTED_ORIGINS: z
    .string()
    .refine((v) => v.split(",").every((o) => !o.trim() || URL.canParse(o.trim())), "comma-separated origins, e.g. https://longhaul.example.com")
    .optional(),
  /** OIDC sign-in (any provider with discovery: Keycloak, Okta, Entra ID, Google, Authentik…); both needed to enable it. */
  OIDC_DISCOVERY_URL: z.string().url().optional(),
  OIDC_CLIENT_ID: z.string().optional(),
  OIDC_CLIENT_SECRET: z.string().optional(),
  /** Label of the OIDC button ("Sign in with <name>"). */
  OIDC_PROVIDER_NAME: z.string().max(60).optional(),
  /** Scopes, space- or comma-separated (default "openid email profile"). */
  OIDC_SCOPES: z.string().optional(),
  /** "closed": after the first account, only admins create accounts (default open: new accounts get no role). */
  LONGHAUL_SIGNUP: z.enum(["open", "closed"]).optional(),
  /** "off": no email + password sign-in (OIDC only). */
  LONGHAUL_PASSWORD_SIGNIN: z.enum(["on", "off"]).optional(),
  /** Session lifetime in days (default 7; refreshed daily while used). */
  LONGHAUL_SESSION_DAYS: z.coerce.number().min(0.01).max(365).optional(),
  /** Traces out (server/telemetry): the standard OpenTelemetry SDK variables; export is off unless an endpoint is set. The exporter itself also reads OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TRACES_HEADERS, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.string().optional(),
  OTEL_SDK_DISABLED: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
  /**
   * The batch span processor (OpenTelemetry spec "Batch Span Processor" variables): spans waiting to be
   * sent at most (default 2048; more are dropped from the queue, counted, logged, and sent by a later
   * pass), the delay before a batch goes out (ms, default 5000), spans per request (default 512).
   */
  OTEL_BSP_MAX_QUEUE_SIZE: z.coerce.number().int().min(1).max(1_000_000).optional(),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(0).max(3_600_000).optional(),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).optional(),
  /** Any value: log each trace export pass's exported runs (stderr). */
  LONGHAUL_TRACE_LOG: z.string().optional(),
  /** CLI: the API token it sends (else, on this machine, DATA_DIR/cli-token from npm start). */
  LONGHAUL_TOKEN: z
    .string()
    .regex(/^lh_[A-Za-z0-9_-]+$/, 'an API token ("lh_…"), from npm run cli -- login')
    .optional(),
});

/** Per-role webhooks: `LONGHAUL_WEBHOOK_URL_<ROLE>` (role upper-cased, other characters `_`), each a URL. */
const ROLE_WEBHOOK = /^LONGHAUL_WEBHOOK_URL_([A-Z0-9_]+)$/;

export type Env = z.infer<typeof envSchema> & {
  /** `LONGHAUL_WEBHOOK_URL_<ROLE>` values by variable name (e.g. `LONGHAUL_WEBHOOK_URL_TEAM_LEAD`), validated as URLs. */
  roleWebhookUrls: Record<string, string>;
};

/**
 * Parses `source` (default process.env); empty values count as unset.
 * @throws Error listing each invalid variable by name with the reason.
 */
export function parseEnv(source: Record<string, string | undefined> = rawEnv()): Env {
  // An empty variable (`FOO=`) means unset, as in most twelve-factor tools.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = envSchema.safeParse(cleaned);
  const roleWebhookUrls: Record<string, string> = {};
  const lines = result.success ? [] : result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  for (const [name, value] of Object.entries(cleaned)) {
    if (!ROLE_WEBHOOK.test(name)) continue;
    if (URL.canParse(value!)) roleWebhookUrls[name] = value!;
    else lines.push(`  ${name}: Invalid URL`);
  }
  if (!result.success || lines.length) throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  return { ...result.data, roleWebhookUrls };
}

let cached: Env | undefined;
/**
 * The validated process environment, parsed on first use and kept: the one way server code reads
 * configuration (review 718b751 §4). @throws Error naming each invalid variable.
 */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}

/** Forgets the parsed environment, so the next {@link env} call reads process.env again (for tests that change it). */
export function resetEnv(): void {
  cached = undefined;
}

/**
 * Longhaul's own configuration, which no profile or MCP server may name (an admin could otherwise
 * send `BETTER_AUTH_SECRET` or `DATABASE_URL` to a base URL of their choosing as a header or an MCP
 * server's env): every variable of the schema above except the provider keys OPENAI_API_KEY and
 * ANTHROPIC_API_KEY (a profile may name them in `apiKeyEnv`), and the prefixes Longhaul and its parts read.
 */
const OWN_PREFIXES = /^(LONGHAUL|BETTER_AUTH|INNGEST|EXECUTOR|OIDC|SMTP|OTEL|DATABASE|EMBEDDED_PG|PG)_|^(DATABASE_URL|PGPASSWORD)$/;

/** Whether `name` is one of Longhaul's own variables, kept from profiles and MCP servers ({@link namedVariables}). */
export function isOwnVariable(name: string): boolean {
  return name !== "OPENAI_API_KEY" && name !== "ANTHROPIC_API_KEY" && (name in envSchema.shape || OWN_PREFIXES.test(name));
}

/**
 * The variables an admin's data names (a profile's `apiKeyEnv` and `${NAME}` header values, an MCP
 * server's `env` / `headers` `fromEnv`): their names are data, so no schema lists them. The current
 * process environment, read on every call (an operator may export a key and restart only the
 * consumer), without Longhaul's own configuration ({@link isOwnVariable}: a name of it reads as
 * unset). The one sanctioned read of the environment besides {@link env}; tests pass their own record
 * to the functions that take one.
 */
export function namedVariables(): Readonly<Record<string, string | undefined>> {
  return Object.fromEntries(Object.entries(rawEnv()).filter(([name]) => !isOwnVariable(name)));
}
