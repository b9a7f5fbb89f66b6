import { describe, expect, it } from "vitest";
import { deactivationRefusal } from "../../server/auth/user-deactivation.ts";

describe("deactivationRefusal", () => {
  const admin = { id: "usr_a", roles: ["admin"], deactivatedAt: null };
  it("refuses oneself, whoever else is admin", () => {
    expect(deactivationRefusal({ target: admin, actorUserId: "usr_a", activeAdmins: 5 })).toBe(
      "userId: you cannot deactivate your own account; ask another admin",
    );
  });
  it("refuses the last active admin, allows one of two", () => {
    expect(deactivationRefusal({ target: admin, actorUserId: null, activeAdmins: 1 })).toBe(
      "userId: this is the last active admin; give another user admin first",
    );
    expect(deactivationRefusal({ target: admin, actorUserId: "usr_b", activeAdmins: 2 })).toBeNull();
  });
  it("allows a non-admin, and an admin already deactivated (nothing changes)", () => {
    expect(deactivationRefusal({ target: { id: "usr_o", roles: ["operator"], deactivatedAt: null }, actorUserId: "usr_a", activeAdmins: 1 })).toBeNull();
    expect(deactivationRefusal({ target: { ...admin, deactivatedAt: new Date() }, actorUserId: null, activeAdmins: 0 })).toBeNull();
  });
});
