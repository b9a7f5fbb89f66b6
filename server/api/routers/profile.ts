import { env } from "../../env.ts";
import { z } from "zod";
import { listProfiles, setProfileEgress } from "../../db/profile-queries.ts";
import { deploymentEgressPolicy, mergeEgressPolicies, parseEmailAllowEntry, parseHttpAllowEntry } from "../../domain/egress-policy.ts";
import { inputObject, textField } from "../../domain/input-fields.ts";
import { adminProcedure, createTRPCRouter, readProcedure } from "../trpc.ts";

/** Most entries in one of a profile's egress allow-lists. */
export const MAX_EGRESS_ENTRIES = 200;

/** An allow-list field: at most {@link MAX_EGRESS_ENTRIES} entries, each parsed by `parse` (its error names the field and the entry). */
function allowList(field: string, parse: (raw: string) => { value: string } | { error: string }) {
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

const setEgressInput = inputObject({
  name: textField("name", 100).pipe(z.string().min(1, "name: must not be blank")),
  emailAllow: allowList("emailAllow", parseEmailAllowEntry),
  httpAllow: allowList("httpAllow", parseHttpAllowEntry),
  onBreach: z.enum(["escalate", "refuse"], "onBreach: escalate or refuse").nullable(),
});

export const profileRouter = createTRPCRouter({
  /**
   * Agent profiles by name with their launch defaults and egress fields (see listProfiles), plus
   * `egressEffective`: the policy a task of the profile runs under (the deployment's merged with the
   * profile's: server/domain/egress-policy.ts mergeEgressPolicies).
   */
  list: readProcedure.query(async ({ ctx }) => {
    const deployment = deploymentEgressPolicy(env());
    return (await listProfiles({ prisma: ctx.prisma })).map((p) => ({ ...p, egressEffective: mergeEgressPolicies(deployment, p) }));
  }),
  /**
   * Admin: replaces a profile's egress fields — `emailAllow` (domains, `*.domain` or addresses),
   * `httpAllow` (http(s) origins), `onBreach` (null = the deployment's setting). Entries are
   * normalised (lower case, origins without paths) and deduplicated; a bad entry is a 400 naming it
   * and nothing is written. Audited like every mutation. @throws NOT_FOUND for an unknown profile.
   */
  setEgress: adminProcedure
    .input(setEgressInput)
    .mutation(({ ctx, input }) =>
      setProfileEgress({ prisma: ctx.prisma, name: input.name, emailAllow: input.emailAllow, httpAllow: input.httpAllow, onBreach: input.onBreach }),
    ),
});
