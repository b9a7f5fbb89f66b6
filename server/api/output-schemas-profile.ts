/**
 * Output schemas of the profile and MCP server procedures (admin pages, `profiles` CLI). Strict
 * objects typed against the repositories' own result types, so a field added there and not here fails
 * to compile or fails the call (INTERNAL_SERVER_ERROR, "Output validation failed"). A profile's spec
 * is checked with the schema it is read with (server/domain/profile-spec.ts profileSnapshotSchema)
 * and an MCP server's with its own (lib/contracts/mcp.ts mcpServerSpecSchema): one description per
 * shape, and both hold for what their reads return.
 */
import { z } from "zod";
import { mcpServerSpecSchema, mcpToolOverrideSchema } from "../../lib/contracts/mcp.ts";
import type { ConnectionTestResult } from "../../lib/contracts/profile.ts";
import type {
  setProfileEgress,
  archiveProfile,
  applyProfileDocument,
  detachProfileFromCode,
  getProfileOrThrow,
  ProfileRecord,
  updateProfile,
} from "../features/profiles/index.ts";
import { EGRESS_ON_BREACH } from "../../lib/contracts/egress.ts";
import type { EgressPolicy } from "../domain/egress-policy.ts";
import { toolAnnotationsSchema, toolClassSchema } from "../features/mcp/index.ts";
import { profileSnapshotSchema } from "../features/profiles/index.ts";
import type { McpServerTestResult } from "../features/mcp/index.ts";
import { codeSourceOutput, count, usd } from "./output-schemas-shared.ts";

type Result<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

const int = z.number().int();

const profileRecordShape = {
  id: z.string(),
  name: z.string(),
  version: int,
  archivedAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
  activeTasks: count,
  spec: profileSnapshotSchema,
  managedAs: codeSourceOutput.nullable(),
};

/** `profile.records`: every profile with its current version's content. */
export const profileRecordsOutput: z.ZodType<ProfileRecord[]> = z.array(z.strictObject(profileRecordShape));

/** One profile with its versions (newest first): `profile.get`, `create`, `copy`, and `update`'s `profile`. */
export const profileDetailOutput: z.ZodType<Result<typeof getProfileOrThrow>> = z.strictObject({
  ...profileRecordShape,
  versions: z.array(z.strictObject({ version: int, createdAt: z.date() })),
});

const fieldChange = z.strictObject({ field: z.string(), from: z.unknown(), to: z.unknown() });

/** `profile.update`: the profile after, and the fields that changed (none: no new version). */
export const profileUpdateOutput: z.ZodType<Result<typeof updateProfile>> = z.strictObject({ profile: profileDetailOutput, changes: z.array(fieldChange) });

/** `profile.archive`. */
export const profileArchiveOutput: z.ZodType<Result<typeof archiveProfile>> = z.strictObject({ name: z.string(), archivedAt: z.date(), changed: z.boolean() });

/** `profile.applyDocument`: what the document changes (or changed), entry by entry. */
export const applyDocumentOutput: z.ZodType<Result<typeof applyProfileDocument>> = z.strictObject({
  dryRun: z.boolean(),
  changed: z.boolean(),
  items: z.array(
    z.strictObject({
      kind: z.enum(["profile", "mcpServer"]),
      name: z.string(),
      action: z.enum(["create", "update", "unarchive", "unchanged"]),
      changes: z.array(fieldChange).optional(),
    }),
  ),
  summary: z.string(),
  warnings: z.array(z.string()),
});

/** `profile.detach`: whether this call detached it, and the file it was managed from. */
export const detachOutput: z.ZodType<Result<typeof detachProfileFromCode>> = z.strictObject({
  name: z.string(),
  detached: z.boolean(),
  source: z.string().nullable(),
});

/** `profile.testConnection` (lib/contracts/profile.ts ConnectionTestResult). */
export const connectionTestOutput: z.ZodType<ConnectionTestResult> = z.discriminatedUnion("ok", [
  z.strictObject({
    ok: z.literal(true),
    model: z.string(),
    baseUrl: z.string(),
    latencyMs: z.number().nonnegative(),
    streamed: z.boolean().optional(),
    note: z.string().optional(),
  }),
  z.strictObject({
    ok: z.literal(false),
    kind: z.enum(["unreachable", "unauthorized", "unknown_model", "missing_key", "error"]),
    message: z.string(),
    baseUrl: z.string(),
  }),
]);

const egressPolicy: z.ZodType<EgressPolicy> = z.strictObject({
  emailDomains: z.array(z.string()),
  emailRecipients: z.array(z.string()),
  httpOrigins: z.array(z.string()),
  onBreach: z.enum(EGRESS_ON_BREACH),
});

const egressFields = { name: z.string(), egressEmailAllow: z.array(z.string()), egressHttpAllow: z.array(z.string()), egressOnBreach: z.string().nullable() };

/** `profile.list`: profiles with their launch defaults, egress fields, the effective egress policy and where each is managed. */
export const profileListOutput = z.array(
  z.strictObject({
    ...egressFields,
    id: z.string(),
    description: z.string(),
    model: z.string(),
    provider: z.string(),
    baseUrl: z.string().nullable(),
    version: int,
    archivedAt: z.date().nullable(),
    tools: z.array(z.string()),
    stepBudget: int,
    tokenBudget: int.nullable(),
    costBudgetUsd: usd.nullable(),
    requireApproval: z.boolean(),
    egressEffective: egressPolicy,
    managedAs: codeSourceOutput.nullable(),
  }),
);

/** `profile.setEgress`: the profile's egress fields as stored (normalised). */
export const setEgressOutput: z.ZodType<Result<typeof setProfileEgress>> = z.strictObject(egressFields);

const classSource = z.strictObject({
  readOnly: z.enum(["annotation", "override", "default"]),
  idempotent: z.enum(["annotation", "override", "default"]),
  destructive: z.enum(["annotation", "override", "default"]),
  openWorld: z.enum(["annotation", "override", "default"]),
});

/** `mcpServer.list`: servers with their health (the live pid or null), the tools they listed with their class, where each is managed. */
export const mcpServerListOutput = z.array(
  z.strictObject({
    id: z.string(),
    name: z.string(),
    spec: mcpServerSpecSchema,
    version: int,
    archivedAt: z.date().nullable(),
    createdBy: z.string(),
    createdAt: z.date(),
    updatedAt: z.date(),
    health: z.strictObject({
      lastStartedAt: z.date().nullable(),
      lastPid: int.nullable(),
      serverInfo: z.unknown(),
      discoveredTools: z.unknown(),
      discoveredAt: z.date().nullable(),
      lastError: z.string().nullable(),
      lastErrorAt: z.date().nullable(),
      restarts: count,
      lastExitAt: z.date().nullable(),
      lastExitCode: int.nullable(),
      lastExitSignal: z.string().nullable(),
    }),
    tools: z.array(
      z.strictObject({
        name: z.string(),
        description: z.string(),
        annotations: toolAnnotationsSchema.nullable(),
        override: mcpToolOverrideSchema.nullable(),
        class: toolClassSchema,
        classSource,
      }),
    ),
    managedAs: codeSourceOutput.nullable(),
  }),
);

/** `mcpServer.upsert`. */
export const mcpUpsertOutput = z.strictObject({ id: z.string(), name: z.string(), version: int, changed: z.boolean(), created: z.boolean() });

/** `mcpServer.archive`. */
export const mcpArchiveOutput = z.strictObject({ id: z.string(), name: z.string(), changed: z.boolean() });

/** `mcpServer.setToolOverride`: the server's new version and the tool's override now (null: none). */
export const mcpToolOverrideOutput = z.strictObject({
  id: z.string(),
  name: z.string(),
  version: int,
  changed: z.boolean(),
  override: mcpToolOverrideSchema.nullable(),
});

/** `mcpServer.test`: it started and listed its tools, or the error in words. */
export const mcpTestOutput: z.ZodType<McpServerTestResult> = z.discriminatedUnion("ok", [
  z.strictObject({
    ok: z.literal(true),
    name: z.string(),
    version: int,
    pid: int.nullable(),
    // Loose: an MCP server's `initialize` may say more of itself (title, icons, websiteUrl), all passed on.
    serverInfo: z.looseObject({ name: z.string(), version: z.string() }).nullable(),
    startMs: z.number().nonnegative(),
    tools: z.array(z.strictObject({ name: z.string(), qualifiedName: z.string(), description: z.string(), class: toolClassSchema, classSource })),
  }),
  z.strictObject({ ok: z.literal(false), name: z.string(), version: int, error: z.string() }),
]);
