/**
 * Profiles: the feature's front door. Everything above server/db, server/domain and server/tools
 * (routers, Inngest functions and their ports, the step bodies, route handlers, the benchmarks)
 * imports the feature from here, never its modules (the dependency rule front-door-profiles).
 * Re-exports only, by name; its map and its playbooks are in README.md beside it.
 */
export {
  allowList,
  diffProfileSpecs,
  MAX_PRICE_PER_MTOK,
  MAX_SYSTEM_PROMPT_CHARS,
  MAX_HEADERS,
  MAX_EGRESS_ENTRIES,
  effortPolicySchema,
  profileSpecShape,
  profileSpecSchema,
  profileSnapshotSchema,
  PROFILE_FIELDS,
} from "../../domain/profile-spec.ts";
export type { ProfileSpec, ProfileSpecInput, ProfileFieldChange } from "../../domain/profile-spec.ts";
export { unresolvedServerReferences, unresolvedProfileReferences } from "../../domain/profile-references.ts";
export type { UnresolvedReference, ProfileReferences, McpServerReferences } from "../../domain/profile-references.ts";
export {
  parseSmokeSpec,
  smokeSkipReason,
  selectSmokeTools,
  smokeStepBudget,
  smokeGoal,
  smokeLaunchPlan,
  smokeProfileSpec,
  smokeReport,
  SMOKE_MODEL,
  SMOKE_BUILTIN_TOOLS,
  SMOKE_FACT_PREFIX,
  smokeToolSchema,
  smokeSpecSchema,
} from "../../domain/profile-smoke.ts";
export type { SmokeTool, SmokeSpec, SmokeOutcome, SmokeReportRow } from "../../domain/profile-smoke.ts";
export { diffFields } from "../../domain/field-diff.ts";
export type { FieldChange } from "../../domain/field-diff.ts";
export {
  parseProfileSpec,
  listProfileRecords,
  getProfileOrThrow,
  profileToTest,
  createProfile,
  updateProfile,
  detachProfileFromCode,
  copyProfile,
  archiveProfile,
  readProfileDocument,
  applyProfileDocument,
  mcpServerChanges,
  ACTIVE_TASK_STATUSES,
  MAX_DOCUMENT_PROFILES,
  MAX_DOCUMENT_MCP_SERVERS,
} from "../../db/profile-repository.ts";
export type { ProfileRecord, ApplyItem } from "../../db/profile-repository.ts";
export { listProfiles, setProfileEgress } from "../../db/profile-queries.ts";
export { profileOfVersion, taskProfile, currentProfileVersion, runProfileOf } from "../../db/task-profile.ts";
export type { TaskProfile } from "../../db/task-profile.ts";
export { serverReferencesOf, unresolvedDocumentReferences, unresolvedLaunchReferences } from "../../db/reference-checks.ts";
export {
  markCodeManaged,
  codeSources,
  refuseIfCodeManaged,
  detachFromCode,
  detachMcpServerFromCode,
  upsertMcpServerByHand,
  setMcpToolOverrideByHand,
  CODE_MANAGED_KINDS,
  API_SOURCE,
  SEED_SOURCE,
} from "../../db/code-managed.ts";
export type { CodeManagedKind, CodeSource } from "../../db/code-managed.ts";
