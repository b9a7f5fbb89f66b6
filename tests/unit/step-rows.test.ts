import { describe, expect, it } from "vitest";
import { decodeStepRows } from "../../components/tasks/step-rows.ts";

// The step list's tuples (lib/contracts/step-rows.ts): decoded by the schema both sides share.

const tuple = [
  0,
  "tool-2-0",
  5,
  "tool",
  "read_file",
  "completed",
  "read a.txt",
  null,
  1,
  0,
  0,
  0,
  0,
  null,
  1_700_000_000_000,
  1_700_000_000_250,
  250,
  "abc123def456",
  null,
];

describe("decodeStepRows", () => {
  it("maps each position to its field, with Dates and the run id", () => {
    const [step] = decodeStepRows({ runIds: ["run_a"], rowsJson: JSON.stringify([tuple]) });
    expect(step).toMatchObject({ runId: "run_a", stepId: "tool-2-0", index: 5, tool: "read_file", durationMs: 250, argsKey: "abc123def456" });
    expect(step?.startedAt.toISOString()).toBe("2023-11-14T22:13:20.000Z");
    expect(step?.endedAt?.toISOString()).toBe("2023-11-14T22:13:20.250Z");
    expect(step?.effort).toBeNull();
  });

  it("carries a model step's effort: level, model and the rule that chose it", () => {
    const model = [
      0,
      "model-3",
      6,
      "model",
      null,
      "completed",
      "read_file",
      null,
      1,
      900,
      768,
      40,
      0.001,
      null,
      1,
      2,
      1,
      null,
      ["low", "gpt-5-mini", "mechanical"],
    ];
    const [step] = decodeStepRows({ runIds: ["run_a"], rowsJson: JSON.stringify([model]) });
    expect(step?.effort).toEqual({ level: "low", model: "gpt-5-mini", rule: "mechanical" });
  });

  it("refuses a tuple whose columns shifted, naming the position", () => {
    const short = tuple.slice(0, 18);
    expect(() => decodeStepRows({ runIds: ["run_a"], rowsJson: JSON.stringify([short]) })).toThrow(/>=19 items/);
    const shifted = [...tuple];
    shifted[8] = "1";
    expect(() => decodeStepRows({ runIds: ["run_a"], rowsJson: JSON.stringify([shifted]) })).toThrow(/"path": \[\s*0,\s*8\s*\]/);
  });
});
