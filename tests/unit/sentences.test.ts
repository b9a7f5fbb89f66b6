import { describe, expect, it } from "vitest";
import { asSentence, withoutFinalStop } from "../../lib/contracts/sentences.ts";
import { rejectedByHumanMessage } from "../../server/domain/rejected-call.ts";

describe("people's words inside the app's sentences", () => {
  it("asSentence adds a full stop only when the text has no closing punctuation", () => {
    expect(asSentence("look")).toBe("look.");
    expect(asSentence("look. ")).toBe("look.");
    expect(asSentence("really?")).toBe("really?");
    expect(asSentence("stop!")).toBe("stop!");
    expect(asSentence("and so…")).toBe("and so…");
    expect(asSentence('he said "no."')).toBe('he said "no."');
    expect(asSentence("  ")).toBe("");
  });

  it("withoutFinalStop drops trailing full stops, not other punctuation", () => {
    expect(withoutFinalStop("not to that address.")).toBe("not to that address");
    expect(withoutFinalStop("wait... ")).toBe("wait");
    expect(withoutFinalStop("why?")).toBe("why?");
  });

  it("a rejected call's message never ends a guidance with '..'", () => {
    expect(rejectedByHumanMessage("send_email", "bob", "not to that address.")).toBe(
      "send_email was rejected by bob and not run: not to that address. Do not try it again; finish without it, or declare a dead end.",
    );
    expect(rejectedByHumanMessage("send_email", null, null)).toBe(
      "send_email was rejected by a handler and not run. Do not try it again; finish without it, or declare a dead end.",
    );
  });
});
