import { describe, expect, it } from "vitest";
import { buildInitialMessages, segmentToolNames, withReferenceTool } from "../../server/domain/agent-context.ts";
import {
  FactReferenceError,
  formatFactRef,
  parseFactRef,
  readFactReference,
  READ_REFERENCE_MAX_CHARS,
  referencedKeys,
  type FactLocation,
  type FactReferencePorts,
} from "../../server/domain/fact-reference.ts";
import { decideNextAction } from "../../server/llm/scripted/agent.ts";
import type { ChatMessage } from "../../server/llm/types.ts";
import { toolDefinitions } from "../../server/tools/registry.ts";
import { licenseAuditGoal } from "../../server/tools/demo/license-audit.ts";

/** Rows of one task: checkpoints by id (working sets) and the task's input facts; other tasks see nothing. */
function fakePorts(rows: { taskId: string; checkpoints: Record<string, Record<string, unknown>>; input?: Record<string, unknown> }) {
  const reads: string[] = [];
  const ports: FactReferencePorts = {
    async checkpointWorkingSet({ taskId, checkpointId }) {
      reads.push(`checkpoint ${checkpointId}`);
      return taskId === rows.taskId ? (rows.checkpoints[checkpointId] ?? null) : null;
    },
    async taskInputFacts({ taskId }) {
      reads.push(`task ${taskId}`);
      return taskId === rows.taskId ? (rows.input ?? {}) : null;
    },
  };
  return { ports, reads };
}

const error = async (p: Promise<unknown>): Promise<{ code: string; message: string }> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof FactReferenceError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected a FactReferenceError");
};

describe("$ref texts", () => {
  it.each<FactLocation>([
    { kind: "checkpoint", checkpointId: "cp_abc123", key: "notes:background-0" },
    { kind: "task_input", taskId: "task_9z", key: 'a "quoted", key with\nnewline — ü' },
  ])("format and parse round-trip: %j", (location) => {
    expect(parseFactRef(formatFactRef(location))).toEqual(location);
  });

  it("formats as compaction always wrote them", () => {
    expect(formatFactRef({ kind: "checkpoint", checkpointId: "cp_1", key: "k" })).toBe('checkpoint cp_1, workingSet."k"');
    expect(formatFactRef({ kind: "task_input", taskId: "task_1", key: "k" })).toBe('task task_1, input.facts."k"');
  });

  it.each([
    "",
    "checkpoint cp_1",
    'checkpoint cp_1, input.facts."k"',
    'task t_1, workingSet."k"',
    "checkpoint cp_1, workingSet.k",
    'checkpoint cp 1, workingSet."k"',
    "checkpoint cp_1, workingSet.1",
  ])("not a reference: %j", (ref) => {
    expect(parseFactRef(ref)).toBeNull();
  });

  it("referencedKeys lists only {$ref, description} values, sorted", () => {
    expect(
      referencedKeys({
        b: { $ref: "x", description: "y" },
        a: { $ref: "x", description: "y" },
        c: { $ref: "x" },
        d: { $ref: "x", description: "y", more: 1 },
        e: "s",
      }),
    ).toEqual(["a", "b"]);
  });
});

describe("readFactReference", () => {
  const big = Array.from({ length: 500 }, (_, i) => `line ${i}: background`).join("\n");
  const rows = {
    taskId: "task_1",
    checkpoints: {
      cp_1: { notes: big, small: { a: 1 } },
      cp_2: {
        notes: { $ref: 'checkpoint cp_1, workingSet."notes"', description: "…" },
        loop: { $ref: 'checkpoint cp_2, workingSet."loop"', description: "…" },
      },
    },
    input: { launched: [1, 2, 3] },
  };

  it("a value that fits comes back whole, not truncated", async () => {
    const { ports } = fakePorts(rows);
    expect(await readFactReference({ ports, taskId: "task_1", ref: 'checkpoint cp_1, workingSet."small"' })).toEqual({
      ref: 'checkpoint cp_1, workingSet."small"',
      key: "small",
      totalChars: 7,
      offset: 0,
      returnedChars: 7,
      truncated: false,
      nextOffset: null,
      value: { a: 1 },
    });
    expect(await readFactReference({ ports, taskId: "task_1", ref: 'task task_1, input.facts."launched"' })).toMatchObject({
      value: [1, 2, 3],
      truncated: false,
    });
  });

  it("a larger value comes in pages of at most READ_REFERENCE_MAX_CHARS, each cut said plainly; the pages make the whole JSON", async () => {
    const { ports } = fakePorts(rows);
    const whole = JSON.stringify(big);
    expect(whole.length).toBeGreaterThan(READ_REFERENCE_MAX_CHARS);
    const pages: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = await readFactReference({ ports, taskId: "task_1", ref: 'checkpoint cp_1, workingSet."notes"', offset });
      expect(page.truncated).toBe(true);
      expect(page.returnedChars).toBeLessThanOrEqual(READ_REFERENCE_MAX_CHARS);
      expect(page.totalChars).toBe(whole.length);
      if (!("text" in page)) throw new Error("expected a page of text");
      if (page.nextOffset !== null)
        expect(page.note).toBe(
          `Cut: characters ${offset}–${page.nextOffset} of ${whole.length} of the value's JSON text. Call read_reference again with offset ${page.nextOffset} for more (at most ${READ_REFERENCE_MAX_CHARS} characters per call).`,
        );
      else expect(page.note).toMatch(/^The last part of the value's JSON text/);
      pages.push(page.text);
      offset = page.nextOffset;
    }
    expect(pages.length).toBe(Math.ceil(whole.length / READ_REFERENCE_MAX_CHARS));
    expect(pages.join("")).toBe(whole);
  });

  it("a smaller limit pages smaller; a limit over the cap is held to it", async () => {
    const { ports } = fakePorts(rows);
    const ref = 'checkpoint cp_1, workingSet."notes"';
    expect(await readFactReference({ ports, taskId: "task_1", ref, limit: 100 })).toMatchObject({ returnedChars: 100, nextOffset: 100 });
    expect(await readFactReference({ ports, taskId: "task_1", ref, limit: 1_000_000 })).toMatchObject({ returnedChars: READ_REFERENCE_MAX_CHARS });
  });

  it("never cuts a surrogate pair in half", async () => {
    const value = "a".repeat(READ_REFERENCE_MAX_CHARS - 2) + "😀" + "b".repeat(100);
    const { ports } = fakePorts({ taskId: "t", checkpoints: { cp: { v: value } } });
    const page = await readFactReference({ ports, taskId: "t", ref: 'checkpoint cp, workingSet."v"' });
    // JSON text: a quote, then the a's: the emoji's high half would be the cap-th character.
    expect(page.returnedChars).toBe(READ_REFERENCE_MAX_CHARS - 1);
    expect("text" in page && page.text.endsWith("a")).toBe(true);
  });

  it("follows a reference to a reference; refuses a cycle", async () => {
    const { ports } = fakePorts(rows);
    expect(await readFactReference({ ports, taskId: "task_1", ref: 'checkpoint cp_2, workingSet."notes"', limit: 10 })).toMatchObject({
      key: "notes",
      totalChars: JSON.stringify(big).length,
    });
    expect(await error(readFactReference({ ports, taskId: "task_1", ref: 'checkpoint cp_2, workingSet."loop"' }))).toMatchObject({ code: "not_found" });
  });

  it("another task's rows are not found, and its input is not even asked for", async () => {
    const { ports, reads } = fakePorts(rows);
    expect(await error(readFactReference({ ports, taskId: "task_2", ref: 'checkpoint cp_1, workingSet."small"' }))).toEqual({
      code: "not_found",
      message: `ref: checkpoint not found for this task (checkpoint cp_1, workingSet."small")`,
    });
    expect(await error(readFactReference({ ports, taskId: "task_2", ref: 'task task_1, input.facts."launched"' }))).toMatchObject({ code: "not_found" });
    expect(reads).toEqual(["checkpoint cp_1"]);
  });

  it.each([
    ["no such key", { ref: 'checkpoint cp_1, workingSet."nope"' }, "not_found", 'ref: no fact "nope" in checkpoint cp_1, workingSet."nope"'],
    ["not a reference", { ref: "notes" }, "invalid_arguments", /^ref: not a reference; pass the "\$ref" text/],
    [
      "offset past the end",
      { ref: 'checkpoint cp_1, workingSet."small"', offset: 7 },
      "invalid_arguments",
      "offset: must be a whole number from 0 to 6, got 7",
    ],
  ] as const)("%s", async (_, args, code, message) => {
    const { ports } = fakePorts(rows);
    const e = await error(readFactReference({ ports, taskId: "task_1", ...args }));
    expect(e.code).toBe(code);
    if (typeof message === "string") expect(e.message).toBe(message);
    else expect(e.message).toMatch(message);
  });
});

describe("the prompt and the tools of a segment with references", () => {
  const ref = { $ref: 'checkpoint cp_1, workingSet."notes"', description: "14,000 chars of JSON: a string" };

  it("the task message says which facts are references and how to read one back, only when there are any", () => {
    const withRefs = buildInitialMessages({ systemPrompt: "s", goal: "g", workingSet: { notes: ref, other: 1 } })[1]!.content as string;
    expect(withRefs).toContain(
      `<references>1 fact(s) of the working set were set aside as references {"$ref", "description"} to keep this context small: "notes".`,
    );
    expect(withRefs).toContain(`call read_reference with its $ref (at most ${READ_REFERENCE_MAX_CHARS} characters of JSON per call`);
    const without = buildInitialMessages({ systemPrompt: "s", goal: "g", workingSet: { other: 1 } })[1]!.content as string;
    expect(without).not.toContain("<references>");
  });

  it("read_reference is offered only when the working set holds references, once", () => {
    expect(segmentToolNames(["list_files", "finish"], { a: 1 })).toEqual(["list_files", "finish"]);
    expect(segmentToolNames(["list_files", "finish"], { notes: ref })).toEqual(["list_files", "finish", "read_reference"]);
    expect(withReferenceTool(["read_reference", "finish"])).toEqual(["read_reference", "finish"]);
    const def = toolDefinitions(["read_reference"])[0]!;
    expect(def.function.parameters).toMatchObject({
      required: ["ref"],
      additionalProperties: false,
      properties: { limit: { type: "integer", maximum: READ_REFERENCE_MAX_CHARS, default: READ_REFERENCE_MAX_CHARS }, offset: { type: "integer", minimum: 0 } },
    });
  });

  it("the scripted agent reads the first reference back (4,000 characters) unless a step it can see did, then goes on with its plan", () => {
    const messages: ChatMessage[] = buildInitialMessages({
      systemPrompt: "s",
      goal: licenseAuditGoal(3),
      workingSet: { "notes:b": ref, "notes:a": { ...ref, $ref: "x" } },
    });
    const first = decideNextAction("scripted", messages)!;
    expect(first.toolCalls).toEqual([{ name: "read_reference", arguments: { ref: "x", limit: 4000 } }]);
    messages.push(
      {
        role: "assistant",
        content: first.content,
        tool_calls: [{ id: "c1", type: "function", function: { name: "read_reference", arguments: JSON.stringify({ ref: "x" }) } }],
      },
      { role: "tool", tool_call_id: "c1", content: JSON.stringify({ ref: "x", key: "notes:a", truncated: false, value: "…" }) },
    );
    const next = decideNextAction("scripted", messages)!;
    expect(next.toolCalls.map((c) => c.name)).toEqual(["list_files"]);
    // A later segment whose completed steps carry the read does not read again.
    const later = buildInitialMessages({
      systemPrompt: "s",
      goal: licenseAuditGoal(3),
      workingSet: { "notes:a": { ...ref, $ref: "x" } },
      completedSteps: [{ stepId: "tool-2-0", tool: "read_reference", summary: "read_reference(x)" }],
    });
    expect(decideNextAction("scripted", later)!.toolCalls.map((c) => c.name)).toEqual(["list_files"]);
  });
});
