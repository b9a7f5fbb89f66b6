import {
  allowList,
  listProfiles,
  setProfileEgress,
  codeSources,
  applyProfileDocument,
  archiveProfile,
  copyProfile,
  detachProfileFromCode,
  createProfile,
  getProfileOrThrow,
  listProfileRecords,
  profileToTest,
  updateProfile,
  smokeGoal,
} from "../../features/profiles/index.ts";
import { env } from "../../env.ts";
import { z } from "zod";
import { deploymentEgressPolicy, mergeEgressPolicies } from "../../domain/egress-policy.ts";
import { parseEmailAllowEntry, parseHttpAllowEntry } from "../../../lib/contracts/egress.ts";
import { inputObject, textField } from "../../domain/input-fields.ts";
import { testProfileConnection } from "../../llm/test-connection.ts";
import {
  applyDocumentOutput,
  connectionTestOutput,
  detachOutput,
  profileArchiveOutput,
  profileDetailOutput,
  profileListOutput,
  profileRecordsOutput,
  profileUpdateOutput,
  setEgressOutput,
} from "../output-schemas-profile.ts";
import { launchResultOutput } from "../output-schemas-shared.ts";
import { adminProcedure, createTRPCRouter, operatorProcedure, readProcedure } from "../trpc.ts";
import { prismaLaunchPorts } from "../../db/launch-ports.ts";
import { launchKeyField, launchTaskInputSchema, launchTask } from "../../domain/launch-task.ts";
import { sendRunStarted } from "../../inngest/send.ts";
import { launchTools } from "../../tools/launch-tools.ts";

const setEgressInput = inputObject({
  name: textField("name", 100).pipe(z.string().min(1, "name: must not be blank")),
  emailAllow: allowList("emailAllow", parseEmailAllowEntry),
  httpAllow: allowList("httpAllow", parseHttpAllowEntry),
  onBreach: z.enum(["escalate", "refuse"], "onBreach: escalate or refuse").nullable(),
});

const nameField = (field = "name") => textField(field, 100).pipe(z.string().min(1, `${field}: must not be blank`));
/**
 * Most characters of a profiles document sent to applyDocument (YAML or JSON text): a bound on
 * what the server reads at all. Below it the document is read, so an oversized field is refused
 * naming its entry, field and limit (`profiles[0] "big": systemPrompt: at most 20000 characters (got
 * 10000000)`), not as an anonymous text size; the entry counts have their own limits
 * (MAX_DOCUMENT_PROFILES, MAX_DOCUMENT_MCP_SERVERS).
 */
export const MAX_DOCUMENT_CHARS = 16_000_000;

export const profileRouter = createTRPCRouter({
  /** Every profile with its current version's full content (lib: server/db/profile-repository.ts listProfileRecords); archived ones with `includeArchived`. */
  records: readProcedure
    .input(inputObject({ includeArchived: z.boolean("includeArchived: true or false").default(false) }).default({ includeArchived: false }))
    .output(profileRecordsOutput)
    .query(({ ctx, input }) => listProfileRecords({ prisma: ctx.prisma, includeArchived: input.includeArchived })),
  /** One profile: its current version's content, its versions (newest first), its active tasks. @throws NOT_FOUND. */
  get: readProcedure
    .input(inputObject({ name: nameField() }))
    .output(profileDetailOutput)
    .query(({ ctx, input }) => getProfileOrThrow({ prisma: ctx.prisma, name: input.name })),
  /**
   * Admin: creates a profile from `spec` (server/domain/profile-spec.ts profileSpecSchema: every
   * problem named with its field and limit, nothing stored). @throws BAD_REQUEST, CONFLICT (name taken).
   */
  create: adminProcedure
    .input(inputObject({ spec: z.unknown() }))
    .output(profileDetailOutput)
    .mutation(({ ctx, input }) => createProfile({ prisma: ctx.prisma, spec: input.spec })),
  /** Admin: replaces profile `name`'s content with `spec`: a change makes a new version (running tasks keep theirs). @throws NOT_FOUND, BAD_REQUEST. */
  update: adminProcedure
    .input(inputObject({ name: nameField(), spec: z.unknown() }))
    .output(profileUpdateOutput)
    .mutation(({ ctx, input }) => updateProfile({ prisma: ctx.prisma, name: input.name, spec: input.spec })),
  /** Admin: copies profile `from` to a new profile `to`. @throws NOT_FOUND, CONFLICT, BAD_REQUEST. */
  copy: adminProcedure
    .input(inputObject({ from: nameField("from"), to: nameField("to") }))
    .output(profileDetailOutput)
    .mutation(({ ctx, input }) => copyProfile({ prisma: ctx.prisma, from: input.from, to: input.to })),
  /** Admin: archives a profile (history stays readable). @throws NOT_FOUND; CONFLICT while tasks of it are active. */
  archive: adminProcedure
    .input(inputObject({ name: nameField() }))
    .output(profileArchiveOutput)
    .mutation(({ ctx, input }) => archiveProfile({ prisma: ctx.prisma, name: input.name })),
  /**
   * Launches a smoke test of profile `name`: an ordinary task on the offline smoke model (never the
   * profile's own, whatever it is) that calls each of the profile's MCP tools once — read-only,
   * closed-world ones only unless `includeSideEffects` (server/domain/profile-smoke.ts). The same
   * `launchKey` launches once (a double click). Operator, like any launch.
   * @throws BAD_INPUT (no such profile, no MCP tools, none callable without includeSideEffects), PRECONDITION_FAILED (a server that cannot start).
   */
  smoke: operatorProcedure
    .input(
      inputObject({
        name: nameField(),
        includeSideEffects: z.boolean("includeSideEffects: true or false").default(false),
        launchKey: launchKeyField.optional(),
      }),
    )
    .output(launchResultOutput)
    .mutation(({ ctx, input }) =>
      launchTask({
        input: launchTaskInputSchema.parse({
          goal: smokeGoal(input.name, input.includeSideEffects),
          profile: input.name,
          ...(input.launchKey ? { launchKey: input.launchKey } : {}),
        }),
        actor: ctx.actor,
        ports: prismaLaunchPorts({ prisma: ctx.prisma, sendRunStarted, tools: launchTools }),
        smoke: { includeSideEffects: input.includeSideEffects },
      }),
    ),
  /**
   * Admin: applies a profiles document — YAML or JSON `text` — of profiles and MCP servers
   * (profile-repository.ts applyProfileDocument): idempotent, all-or-nothing validation, `dryRun`
   * returns the diff without writing. @throws BAD_REQUEST listing every problem.
   */
  applyDocument: adminProcedure
    .input(
      inputObject({
        text: z.string("text: the document as YAML or JSON text").max(MAX_DOCUMENT_CHARS, {
          error: (i) =>
            `text: a profiles document is at most ${MAX_DOCUMENT_CHARS} characters (got ${typeof i.input === "string" ? i.input.length : "more"}); split it into several files`,
        }),
        dryRun: z.boolean("dryRun: true or false").default(false),
        /** Where the document comes from (the CLI sends the file's path); its entries are then managed as code from there. */
        source: textField("source", 500).pipe(z.string().min(1, "source: must not be blank")).optional(),
      }),
    )
    .output(applyDocumentOutput)
    .mutation(({ ctx, input }) =>
      applyProfileDocument({ prisma: ctx.prisma, text: input.text, dryRun: input.dryRun, actor: ctx.actor, ...(input.source ? { source: input.source } : {}) }),
    ),
  /**
   * Admin: detaches profile `name` from the file it is managed from, so the browser may edit it (its
   * edits then differ from the file; applying the file again manages it as code again). Idempotent.
   * @throws NOT_FOUND.
   */
  detach: adminProcedure
    .input(inputObject({ name: nameField() }))
    .output(detachOutput)
    .mutation(({ ctx, input }) => detachProfileFromCode({ prisma: ctx.prisma, name: input.name })),
  /**
   * Admin: one tiny request to the model of profile `name` (its current version), or of an unsaved
   * `spec` (the form before saving), through the OpenAI SDK (server/llm/test-connection.ts): ok with
   * the latency, or the problem in words (unreachable, unauthorized, unknown model, missing key).
   */
  testConnection: adminProcedure
    .input(inputObject({ name: nameField().optional(), spec: z.unknown().optional() }))
    .output(connectionTestOutput)
    .mutation(async ({ ctx, input }) => {
      const spec = await profileToTest({ prisma: ctx.prisma, ...input });
      return testProfileConnection({ endpoint: spec, model: spec.model });
    }),
  /**
   * Agent profiles by name with their launch defaults and egress fields (see listProfiles), plus
   * `egressEffective`: the policy a task of the profile runs under (the deployment's merged with the
   * profile's: server/domain/egress-policy.ts mergeEgressPolicies), and `managedAs`: where it is
   * managed as code (null: edited in the browser).
   */
  list: readProcedure.output(profileListOutput).query(async ({ ctx }) => {
    const deployment = deploymentEgressPolicy(env());
    const [profiles, managed] = await Promise.all([listProfiles({ prisma: ctx.prisma }), codeSources(ctx.prisma, "profile")]);
    return profiles.map((p) => ({ ...p, egressEffective: mergeEgressPolicies(deployment, p), managedAs: managed.get(p.name) ?? null }));
  }),
  /**
   * Admin: replaces a profile's egress fields — `emailAllow` (domains, `*.domain` or addresses),
   * `httpAllow` (http(s) origins), `onBreach` (null = the deployment's setting). Entries are
   * normalised (lower case, origins without paths) and deduplicated; a bad entry is a 400 naming it
   * and nothing is written. Audited like every mutation. @throws NOT_FOUND for an unknown profile.
   */
  setEgress: adminProcedure
    .input(setEgressInput)
    .output(setEgressOutput)
    .mutation(({ ctx, input }) =>
      setProfileEgress({ prisma: ctx.prisma, name: input.name, emailAllow: input.emailAllow, httpAllow: input.httpAllow, onBreach: input.onBreach }),
    ),
});
