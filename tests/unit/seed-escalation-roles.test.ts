import { describe, expect, it } from "vitest";
import { ROLES } from "../../lib/contracts/roles.ts";
import { SEED_ESCALATION_ROLE, seedProfiles } from "../../server/db/seed.ts";

// Escalations reach a person: the seeded profiles route escalations to roles that exist
// (handlers by default), and an overdue one moves on only to a role an admin can give.
describe("seeded escalation routing", () => {
  it("every role an escalation of a seeded profile can reach is one of ROLES", () => {
    const roles: readonly string[] = ROLES;
    expect(SEED_ESCALATION_ROLE).toBe("handler");
    for (const p of seedProfiles) {
      const reach = [("escalationRole" in p ? (p as { escalationRole?: string }).escalationRole : undefined) ?? SEED_ESCALATION_ROLE, ...p.escalationChain];
      for (const r of reach) expect(roles, `${p.name}: ${r}`).toContain(r);
    }
  });
});
