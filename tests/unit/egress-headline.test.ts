import { describe, expect, it } from "vitest";
import { egressHeadline } from "../../server/domain/step-summaries.ts";

// The egress escalation's headline ("a short headline with the findings listed once"):
// the tool and where it would send, never the reasons or findings (the card lists those once).

const breach = (destination: string) => ({
  kind: "email_recipient",
  field: "to",
  destination,
  reason: "recipient outside allowed domains",
  rule: "example.com",
});

describe("egressHeadline", () => {
  it("names the breached destination, not the call's other arguments or the reasons", () => {
    const headline = egressHeadline("send_email", [breach("leak@elsewhere.example.net")], { to: "leak@elsewhere.example.net", body: "x".repeat(900) });
    expect(headline).toBe("send_email to leak@elsewhere.example.net");
  });

  it("without a breached destination (a secret in the body only), the call's own to / url", () => {
    expect(egressHeadline("send_email", [], { to: "ops@example.com", body: "[redacted: GitHub Token]" })).toBe("send_email to ops@example.com");
    expect(egressHeadline("http_post", [], { url: "https://hooks.example.com/x", body: "{}" })).toBe("http_post to https://hooks.example.com/x");
  });

  it("at most three destinations, then +N more; repeats once; long ones cut", () => {
    const five = ["a@x.org", "b@x.org", "a@x.org", "c@x.org", "d@x.org", "e@x.org"].map(breach);
    expect(egressHeadline("send_email", five, {})).toBe("send_email to a@x.org, b@x.org, c@x.org +2 more");
    const long = `https://x.example/${"p".repeat(200)}`;
    const headline = egressHeadline("http_post", [], { url: long });
    expect(headline.length).toBeLessThan(100);
    expect(headline.endsWith("…")).toBe(true);
  });

  it("no destination at all (an open-world MCP tool): the tool alone", () => {
    expect(egressHeadline("memory__create_entities", [], { entities: [] })).toBe("memory__create_entities");
  });
});
