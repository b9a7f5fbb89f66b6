import { describe, expect, it } from "vitest";
import { userLabel } from "../../components/admin/users/user-label.ts";

describe("userLabel", () => {
  it("names the user with their email", () => {
    expect(userLabel("Ada Admin", "ada@example.com")).toBe("Ada Admin (ada@example.com)");
  });
  it("says the email once when the display name was made unique with it", () => {
    expect(userLabel("Ada Admin (ada2@example.com)", "ada2@example.com")).toBe("Ada Admin (ada2@example.com)");
    expect(userLabel("Ada Admin (Ada2@Example.com)", "ada2@example.com")).toBe("Ada Admin (Ada2@Example.com)");
  });
});
