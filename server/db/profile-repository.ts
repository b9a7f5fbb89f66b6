import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { AppError } from "../errors.ts";
import { diffProfileSpecs, profileSpecSchema, type ProfileFieldChange, type ProfileSpec } from "../domain/profile-spec.ts";
import type { PrismaClient } from "./client.ts";
import { listMcpServers, normaliseMcpServerSpec, upsertMcpServer } from "./mcp-server-repository.ts";
import { mcpServerSpecSchema, type McpServerSpec } from "../../lib/contracts/mcp.ts";
import { diffFields } from "../domain/field-diff.ts";
import { unresolvedDocumentReferences } from "./reference-checks.ts";
import { API_SOURCE, codeSources, detachFromCode, markCodeManaged, refuseIfCodeManaged, type CodeSource } from "./code-managed.ts";
import { currentProfileVersion } from "./task-profile.ts";
import { assigneeUser, sameUserName } from "../../lib/contracts/escalation.ts";
import { profileEffortJson, profileHeadersJson, profileMcpServersJson } from "./json-columns.ts";

/**
 * Agent profiles as admins manage them: create, edit, copy, archive, and apply a whole
 * document of profiles and MCP servers ("profiles as code"). Every content change makes a new
 * immutable version (trigger, server/db/sql/profile-versions.sql); tasks keep the version they
 * launched with. Validation is server/domain/profile-spec.ts `profileSpecSchema`.
 */

/** Task statuses that still run with their profile: a profile used by one cannot be archived. */
export const ACTIVE_TASK_STATUSES = ["queued", "running", "waiting_for_human"] as const;

/** One profile as the admin page and `profiles list` read it: its current version's content and bookkeeping. */
export interface ProfileRecord {
  id: string;
  name: string;
  version: number;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Tasks of this profile that are queued, running or waiting for a human. */
  activeTasks: number;
  spec: ProfileSpec;
  /** Where it is managed as code (`profiles apply` from a file, or Longhaul's seed), null when it is edited in the browser. */
  managedAs: CodeSource | null;
}

/** Prisma data for a profile's columns from a validated spec. */
function columnsOf(spec: ProfileSpec) {
  return {
    ...spec,
    headers: profileHeadersJson.encode(spec.headers),
    mcpServers: profileMcpServersJson.encode(spec.mcpServers),
    // SQL NULL (not JSON null) when the profile has no effort policy.
    effort: profileEffortJson.encodeNullable(spec.effort),
  };
}

/** A zod error of a profile in words, one line per problem, prefixed with where it is (`profiles[1] "x": `). */
function issueLines(error: z.ZodError, where: string): string[] {
  return error.issues.map((i) => {
    const msg = i.message.includes(":") ? i.message : `${i.path.map(String).join(".") || "profile"}: ${i.message}`;
    return `${where}${msg}`;
  });
}

/**
 * Parses and validates a profile (untrusted input). @throws AppError BAD_INPUT with every problem,
 * one a line, each naming the field and its limit.
 */
export function parseProfileSpec(input: unknown, where = ""): ProfileSpec {
  const parsed = profileSpecSchema.safeParse(input);
  if (!parsed.success) throw new AppError("BAD_INPUT", issueLines(parsed.error, where).join("\n"));
  return parsed.data;
}

async function activeTaskCounts(prisma: PrismaClient, profileIds: string[]): Promise<Map<string, number>> {
  const rows = await prisma.task.groupBy({
    by: ["profileId"],
    where: { profileId: { in: profileIds }, status: { in: [...ACTIVE_TASK_STATUSES] } },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.profileId, r._count._all]));
}

/** Every profile by name with its current version (archived ones only with `includeArchived`). */
export async function listProfileRecords({ prisma, includeArchived = false }: { prisma: PrismaClient; includeArchived?: boolean }): Promise<ProfileRecord[]> {
  const rows = await prisma.agentProfile.findMany({ where: includeArchived ? {} : { archivedAt: null }, orderBy: { name: "asc" } });
  const [active, managed] = await Promise.all([
    activeTaskCounts(
      prisma,
      rows.map((r) => r.id),
    ),
    codeSources(prisma, "profile"),
  ]);
  return Promise.all(
    rows.map(async (r) => ({
      id: r.id,
      name: r.name,
      version: r.version,
      archivedAt: r.archivedAt,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      activeTasks: active.get(r.id) ?? 0,
      spec: (await currentProfileVersion({ prisma, profileId: r.id })).spec,
      managedAs: managed.get(r.name) ?? null,
    })),
  );
}

/** Profile `name` with the list of its versions (newest first: number and time). @throws AppError NOT_FOUND. */
export async function getProfileOrThrow({ prisma, name }: { prisma: PrismaClient; name: string }) {
  const row = await prisma.agentProfile.findUnique({ where: { name } });
  if (!row) throw new AppError("NOT_FOUND", `profile "${name}" not found`);
  const [spec, versions, active, managed] = await Promise.all([
    currentProfileVersion({ prisma, profileId: row.id }).then((v) => v.spec),
    prisma.agentProfileVersion.findMany({ where: { profileId: row.id }, orderBy: { version: "desc" }, select: { version: true, createdAt: true } }),
    activeTaskCounts(prisma, [row.id]),
    codeSources(prisma, "profile", [row.name]),
  ]);
  const record: ProfileRecord = {
    id: row.id,
    name: row.name,
    version: row.version,
    archivedAt: row.archivedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    activeTasks: active.get(row.id) ?? 0,
    spec,
    managedAs: managed.get(row.name) ?? null,
  };
  return { ...record, versions };
}

/**
 * The profile a connection test is for: an unsaved `spec` (validated) or saved profile `name`'s current version.
 * @throws AppError BAD_INPUT (neither given, or a bad spec), NOT_FOUND.
 */
export async function profileToTest({ prisma, name, spec }: { prisma: PrismaClient; name?: string | undefined; spec?: unknown }): Promise<ProfileSpec> {
  if (spec !== undefined) return parseProfileSpec(spec);
  if (name) return (await getProfileOrThrow({ prisma, name })).spec;
  throw new AppError("BAD_INPUT", "input: give name (a saved profile) or spec (an unsaved one)");
}

/** The profile's MCP selections must name registered servers (`known`: names available). @throws AppError BAD_INPUT. */
function checkMcpSelections(spec: ProfileSpec, known: Set<string>, where = ""): string[] {
  return spec.mcpServers
    .filter((s) => !known.has(s.server))
    .map((s) => `${where}mcpServers: no MCP server named "${s.server}" is registered${known.size ? ` (registered: ${[...known].sort().join(", ")})` : ""}`);
}

/**
 * The `user:<display name>` entries of a profile's escalation chain must name users who exist and
 * are not deactivated ("named users an admin can actually assign"), matched
 * case-insensitively as display names are unique so. Returns one problem a line, naming the field:
 * `escalationChain[1]: no active user named "Dana" (user:Dana; deactivated)`.
 */
async function checkChainUsers(prisma: PrismaClient, spec: ProfileSpec, where = ""): Promise<string[]> {
  const named = spec.escalationChain
    .map((entry, i) => ({ entry, i, name: assigneeUser(entry) }))
    .filter((x): x is { entry: string; i: number; name: string } => x.name !== null);
  if (named.length === 0) return [];
  const users = await prisma.user.findMany({
    where: { OR: named.map((n) => ({ name: { equals: n.name, mode: "insensitive" as const } })) },
    select: { name: true, deactivatedAt: true },
  });
  return named.flatMap(({ entry, i, name }) => {
    const u = users.find((x) => sameUserName(x.name, name));
    if (u && !u.deactivatedAt) return [];
    const why = u ? "that user is deactivated; reactivate them or name someone else" : "no user has that display name";
    return [`${where}escalationChain[${i}]: ${JSON.stringify(entry)} cannot be assigned: ${why}`];
  });
}

async function knownServers(prisma: PrismaClient): Promise<Set<string>> {
  return new Set((await listMcpServers({ prisma })).map((s) => s.name));
}

/** Creates profile `spec.name` (input untrusted; validated). Returns it. @throws AppError BAD_INPUT, CONFLICT when the name is taken. */
export async function createProfile({ prisma, spec: input }: { prisma: PrismaClient; spec: unknown }) {
  const spec = parseProfileSpec(input);
  const problems = [...checkMcpSelections(spec, await knownServers(prisma)), ...(await checkChainUsers(prisma, spec))];
  if (problems.length) throw new AppError("BAD_INPUT", problems.join("\n"));
  if (await prisma.agentProfile.findUnique({ where: { name: spec.name }, select: { id: true } })) {
    throw new AppError("CONFLICT", `name: a profile named "${spec.name}" exists already (edit it, or copy it under a new name)`);
  }
  await prisma.agentProfile.create({ data: columnsOf(spec) });
  return getProfileOrThrow({ prisma, name: spec.name });
}

/**
 * Replaces profile `name`'s content with `spec` (its name must stay `name`). A change makes a new
 * version; tasks already launched keep theirs. Returns the profile and `changes` (empty: nothing
 * differed, no version was made). @throws AppError NOT_FOUND, BAD_INPUT, CONFLICT (a change to a
 * profile managed as code: server/db/code-managed.ts).
 */
export async function updateProfile({ prisma, name, spec: input }: { prisma: PrismaClient; name: string; spec: unknown }) {
  const spec = parseProfileSpec(input);
  if (spec.name !== name) throw new AppError("BAD_INPUT", `name: a profile cannot be renamed (copy "${name}" to "${spec.name}" instead)`);
  const before = await getProfileOrThrow({ prisma, name });
  const problems = [...checkMcpSelections(spec, await knownServers(prisma)), ...(await checkChainUsers(prisma, spec))];
  if (problems.length) throw new AppError("BAD_INPUT", problems.join("\n"));
  const changes = diffProfileSpecs(before.spec, spec);
  // A profile managed as code changes only through its file (or after an admin detached it): an
  // edit here would differ from the file, and the next apply would undo it.
  if (changes.length) await refuseIfCodeManaged(prisma, "profile", name);
  if (changes.length) await prisma.agentProfile.update({ where: { name }, data: columnsOf(spec) });
  return { profile: await getProfileOrThrow({ prisma, name }), changes };
}

/**
 * Detaches profile `name` from the file (or seed) it is managed from: the browser may edit it from
 * now on. Idempotent (`detached: false` when it was not managed as code). @throws AppError NOT_FOUND.
 */
export async function detachProfileFromCode({ prisma, name }: { prisma: PrismaClient; name: string }) {
  if (!(await prisma.agentProfile.findUnique({ where: { name }, select: { id: true } }))) throw new AppError("NOT_FOUND", `profile "${name}" not found`);
  return { name, ...(await detachFromCode(prisma, "profile", name)) };
}

/** Copies profile `from` (its current version) to a new profile `to`, optionally with a new description. @throws AppError NOT_FOUND, CONFLICT, BAD_INPUT. */
export async function copyProfile({ prisma, from, to, description }: { prisma: PrismaClient; from: string; to: string; description?: string }) {
  const source = await getProfileOrThrow({ prisma, name: from });
  return createProfile({ prisma, spec: { ...source.spec, name: to, description: description ?? `Copy of ${from}. ${source.spec.description}`.trim() } });
}

/**
 * Archives profile `name`: no new launch may use it; its versions and tasks stay readable.
 * Idempotent (`changed: false` when archived already).
 * @throws AppError NOT_FOUND; CONFLICT while tasks of it are queued, running or waiting for a human.
 */
export async function archiveProfile({ prisma, name }: { prisma: PrismaClient; name: string }) {
  const row = await prisma.agentProfile.findUnique({ where: { name }, select: { id: true, archivedAt: true } });
  if (!row) throw new AppError("NOT_FOUND", `profile "${name}" not found`);
  if (row.archivedAt) return { name, archivedAt: row.archivedAt, changed: false };
  const active = await prisma.task.findMany({
    where: { profileId: row.id, status: { in: [...ACTIVE_TASK_STATUSES] } },
    select: { id: true },
    take: 5,
    orderBy: { createdAt: "desc" },
  });
  if (active.length) {
    throw new AppError(
      "CONFLICT",
      `profile "${name}" is used by tasks that are still queued, running or waiting for a human (${active.map((t) => t.id).join(", ")}${active.length === 5 ? ", …" : ""}); cancel or finish them first`,
    );
  }
  // Guarded: a task launched between the check and here would have seen it unarchived, which is fine.
  const at = new Date();
  await prisma.agentProfile.updateMany({ where: { id: row.id, archivedAt: null }, data: { archivedAt: at } });
  return { name, archivedAt: at, changed: true };
}

/** What `applyProfileDocument` did (or, dry run, would do) to one profile or MCP server. */
export interface ApplyItem {
  kind: "profile" | "mcpServer";
  name: string;
  action: "create" | "update" | "unarchive" | "unchanged";
  /** The fields that change (stored → new): a profile's by name, an MCP server's by path (`transport.env.API_TOKEN`). */
  changes?: ProfileFieldChange[];
}

/** Most profiles and most MCP servers one document may hold. */
export const MAX_DOCUMENT_PROFILES = 500;
export const MAX_DOCUMENT_MCP_SERVERS = 200;

/** An entry's name as written, for the messages about it (` "name"`, or nothing when it has none). */
function labelOf(raw: unknown): string {
  return raw && typeof raw === "object" && "name" in raw && typeof raw.name === "string" ? ` ${JSON.stringify(raw.name.slice(0, 100))}` : "";
}

/** Every problem of one MCP server entry, one a line: `mcpServers[0] "tracker": transport.command: must not be empty`. */
function serverIssueLines(error: z.ZodError, where: string): string[] {
  return error.issues.map((i) => `${where}${i.path.map(String).join(".") || "server"}: ${i.message}`);
}

const documentShape = z.union([
  z.array(z.unknown()).transform((profiles) => ({ profiles, mcpServers: [] as unknown[] })),
  z
    .object({ profiles: z.array(z.unknown(), "profiles: a list").optional(), mcpServers: z.array(z.unknown(), "mcpServers: a list").optional() })
    .strict()
    .transform((d) => ({ profiles: d.profiles ?? [], mcpServers: d.mcpServers ?? [] })),
]);

/**
 * Reads a profiles document: YAML or JSON text (JSON is YAML), or an already parsed value. Shapes: one
 * profile (an object with `model`), a list of profiles, or `{profiles: [...], mcpServers: [...]}`.
 * @throws AppError BAD_INPUT for text that does not parse or a shape that is none of these.
 */
export function readProfileDocument(input: { text?: string; document?: unknown }): { profiles: unknown[]; mcpServers: unknown[] } {
  let value: unknown = input.document;
  if (input.text !== undefined) {
    try {
      value = parseYaml(input.text, { prettyErrors: true });
    } catch (error) {
      throw new AppError("BAD_INPUT", `document: not valid YAML or JSON: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    }
  }
  if (value && typeof value === "object" && !Array.isArray(value) && "model" in value) return { profiles: [value], mcpServers: [] };
  const parsed = documentShape.safeParse(value);
  if (!parsed.success) {
    throw new AppError("BAD_INPUT", "document: must be a profile (with model), a list of profiles, or an object with profiles: and mcpServers: lists");
  }
  return parsed.data;
}

/**
 * Applies a profiles document ("profiles as code"): every MCP server upserted with
 * mcp-server-repository.ts, every profile created or updated (a changed one gets a new version; an
 * archived one is unarchived). Idempotent: applying the same document again changes nothing and says
 * so (`changed: false`). Everything is validated first and nothing is written when anything is wrong
 * (every problem named, one a line: `profiles[1] "name": field: limit`, `mcpServers[0] "name":
 * transport.command: …`). With `dryRun`, returns what would change (the field diff, of profiles and
 * MCP servers alike) and writes nothing. `warnings`: the references the document makes that do not
 * resolve now (a key variable or an MCP server's `fromEnv` that is not set, a tool subset naming a
 * tool the server did not list: server/db/reference-checks.ts), one a line naming the entry, the
 * field and the variable or tool — accepted, as the variable may be set before the first launch,
 * but a launch refuses while they stay unresolved.
 * @throws AppError BAD_INPUT.
 */
export async function applyProfileDocument({
  prisma,
  text,
  document,
  dryRun = false,
  actor,
  source = API_SOURCE,
}: {
  prisma: PrismaClient;
  text?: string;
  document?: unknown;
  dryRun?: boolean;
  actor: string;
  /** Where the document comes from (the CLI sends the file's path): every entry is managed as code from there. */
  source?: string;
}): Promise<{ dryRun: boolean; changed: boolean; items: ApplyItem[]; summary: string; warnings: string[] }> {
  const doc = readProfileDocument({ ...(text !== undefined ? { text } : {}), document });
  const problems: string[] = [];
  if (doc.profiles.length > MAX_DOCUMENT_PROFILES)
    problems.push(`profiles: at most ${MAX_DOCUMENT_PROFILES} profiles in one document (got ${doc.profiles.length})`);
  if (doc.mcpServers.length > MAX_DOCUMENT_MCP_SERVERS)
    problems.push(`mcpServers: at most ${MAX_DOCUMENT_MCP_SERVERS} MCP servers in one document (got ${doc.mcpServers.length})`);
  const servers = doc.mcpServers.flatMap((raw, i) => {
    const parsed = mcpServerSpecSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(...serverIssueLines(parsed.error, `mcpServers[${i}]${labelOf(raw)}: `));
      return [];
    }
    return [normaliseMcpServerSpec(parsed.data)];
  });
  const specs = doc.profiles.flatMap((raw, i) => {
    const label = labelOf(raw);
    const parsed = profileSpecSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(...issueLines(parsed.error, `profiles[${i}]${label}: `));
      return [];
    }
    return [parsed.data];
  });
  const dup = (names: string[]) => names.filter((n, i) => names.indexOf(n) !== i);
  for (const n of new Set(dup(specs.map((s) => s.name)))) problems.push(`profiles: "${n}" is listed more than once`);
  for (const n of new Set(dup(servers.map((s) => s.name)))) problems.push(`mcpServers: "${n}" is listed more than once`);
  const known = await knownServers(prisma);
  for (const s of servers) known.add(s.name);
  specs.forEach((spec, i) => problems.push(...checkMcpSelections(spec, known, `profiles[${i}] "${spec.name}": `)));
  for (const [i, spec] of specs.entries()) problems.push(...(await checkChainUsers(prisma, spec, `profiles[${i}] "${spec.name}": `)));
  if (problems.length) throw new AppError("BAD_INPUT", problems.join("\n"));

  const items: ApplyItem[] = [];
  const existingServers = new Map((await listMcpServers({ prisma, includeArchived: true })).map((s) => [s.name, s]));
  for (const s of servers) {
    const before = existingServers.get(s.name);
    const changes = mcpServerChanges(before ? normaliseMcpServerSpec(before.spec) : null, s);
    items.push({
      kind: "mcpServer",
      name: s.name,
      action: !before ? "create" : changes.length ? "update" : before.archivedAt ? "unarchive" : "unchanged",
      changes,
    });
  }
  const rows = new Map((await prisma.agentProfile.findMany({ where: { name: { in: specs.map((s) => s.name) } } })).map((r) => [r.name, r]));
  for (const spec of specs) {
    const row = rows.get(spec.name);
    const before = row ? (await currentProfileVersion({ prisma, profileId: row.id })).spec : null;
    const changes = diffProfileSpecs(before, spec);
    const action = !row ? "create" : changes.length ? "update" : row.archivedAt ? "unarchive" : "unchanged";
    items.push({ kind: "profile", name: spec.name, action, changes });
  }
  const changed = items.some((i) => i.action !== "unchanged");
  if (!dryRun && changed) {
    for (const s of servers) {
      if (items.find((i) => i.kind === "mcpServer" && i.name === s.name)?.action !== "unchanged") await upsertMcpServer({ prisma, spec: s, actor });
    }
    await prisma.$transaction(async (tx) => {
      for (const spec of specs) {
        const item = items.find((i) => i.kind === "profile" && i.name === spec.name);
        if (item?.action === "create") await tx.agentProfile.create({ data: columnsOf(spec) });
        else if (item?.action === "update" || item?.action === "unarchive")
          await tx.agentProfile.update({ where: { name: spec.name }, data: { ...columnsOf(spec), archivedAt: null } });
      }
    });
  }
  // Applied from a file: each entry is managed as code from it (again, if an admin had detached it).
  if (!dryRun) {
    await markCodeManaged(prisma, { kind: "mcpServer", names: servers.map((x) => x.name), source, actor });
    await markCodeManaged(prisma, { kind: "profile", names: specs.map((x) => x.name), source, actor });
  }
  const count = (a: ApplyItem["action"]) => items.filter((i) => i.action === a).length;
  const summary = changed
    ? `${dryRun ? "would change" : "changed"}: ${count("create")} created, ${count("update")} updated, ${count("unarchive")} unarchived, ${count("unchanged")} unchanged`
    : `nothing to change: all ${items.length} item(s) already as the document says`;
  // Accepted, but said: a reference that does not resolve now would fail the launches of these profiles.
  const warnings = (await unresolvedDocumentReferences({ prisma, profiles: specs, servers })).map((r) => r.message);
  return { dryRun, changed, items, summary, warnings };
}

/**
 * The fields of an MCP server that differ between the stored spec `from` (null: a new server, every
 * field given) and `to`, both normalised, by path (`transport.args`, `transport.env.API_TOKEN`,
 * `tools.create_entities.readOnly`) as a profile's diff names its fields. Pure.
 */
export function mcpServerChanges(from: McpServerSpec | null, to: McpServerSpec): ProfileFieldChange[] {
  const { name: _a, ...next } = to;
  if (!from) return diffFields(null, next);
  const { name: _b, ...before } = from;
  return diffFields(before, next);
}
