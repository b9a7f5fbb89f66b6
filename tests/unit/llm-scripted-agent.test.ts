import { describe, expect, it } from "vitest";
import { buildInitialMessages } from "../../server/domain/agent-context.ts";
import { describeToolStep } from "../../server/domain/checkpoint.ts";
import { decideNextAction, NOTE_CHARS, NOTES_COUNT, noteText } from "../../server/llm/scripted/agent.ts";
import { readAgentContext } from "../../server/llm/scripted/context.ts";
import { compareCodePoints, parseLicenseAuditGoal } from "../../server/llm/scripted/license-audit.ts";
import { licenseAuditGoal } from "../../server/tools/demo/license-audit.ts";
import type { ChatMessage } from "../../server/llm/types.ts";
import { taskMessages } from "./llm-tool-sim.ts";

const GOAL =
  "Audit the licenses of the first 3 packages in node_modules: record name, version and license of each as facts, write licenses.csv (name,version,license,copyleft), email the summary to audit@example.com, then finish.";

/** Appends one assistant turn with the given calls and their results. */
function turn(messages: ChatMessage[], n: number, calls: { name: string; args: unknown; result: unknown }[]): ChatMessage[] {
  const toolCalls = calls.map((c, k) => ({ id: `c${n}_${k}`, type: "function" as const, function: { name: c.name, arguments: JSON.stringify(c.args) } }));
  return [
    ...messages,
    { role: "assistant", content: null, tool_calls: toolCalls },
    ...calls.map((c, k) => ({ role: "tool" as const, tool_call_id: `c${n}_${k}`, content: JSON.stringify(c.result) })),
  ];
}

const decide = (messages: ChatMessage[], model = "scripted") => {
  const action = decideNextAction(model, messages);
  if (!action) throw new Error("no action");
  return action.toolCalls.map((c) => ({ name: c.name, args: typeof c.arguments === "string" ? c.arguments : c.arguments }));
};

describe("goal parsing", () => {
  it("reads N and the address of the demo goal", () => {
    expect(parseLicenseAuditGoal(GOAL)).toEqual({ limit: 3, to: "audit@example.com", postTo: null });
    expect(parseLicenseAuditGoal("Audit the licenses of all packages in node_modules")).toEqual({ limit: null, to: null, postTo: null });
    expect(parseLicenseAuditGoal(licenseAuditGoal(7, "a@b.io", "http://127.0.0.1:9/hook?x=1"))).toEqual({
      limit: 7,
      to: "a@b.io",
      postTo: "http://127.0.0.1:9/hook?x=1",
    });
    expect(parseLicenseAuditGoal("Write a poem")).toBeNull();
  });
  it("sorts by code point", () => {
    expect(["b", "@s/x", "Z", "a"].sort(compareCodePoints)).toEqual(["@s/x", "Z", "a", "b"]);
    expect(compareCodePoints("\u{1F600}", "\uFFFF")).toBeGreaterThan(0); // UTF-16 `<` would say otherwise
  });
});

describe("reading the model context", () => {
  it("takes goal, working set, open question, guidance and the calls with results", () => {
    let m = taskMessages(
      GOAL,
      { "license:a": { name: "a", version: "1", license: "MIT" } },
      "\n<open_question>which?</open_question>\n<guidance>hurry</guidance>",
    );
    m = turn(m, 1, [
      { name: "record_fact", args: { key: "x", value: 1 }, result: { key: "x", recorded: true, previous: null } },
      { name: "record_fact", args: { key: "y", value: 2 }, result: { error: { code: "invalid_arguments", message: "bad" } } },
    ]);
    const ctx = readAgentContext(m);
    expect(ctx.goal).toBe(GOAL);
    expect(ctx.facts).toEqual({ "license:a": { name: "a", version: "1", license: "MIT" }, x: 1 });
    expect(ctx.openQuestion).toBe("which?");
    expect(ctx.guidance).toBe("hurry");
    expect(ctx.turns).toBe(1);
    expect(ctx.calls[1]!.error).toEqual({ code: "invalid_arguments", message: "bad" });
  });
  it("takes a checkpoint's step summaries as results", () => {
    const steps = [
      { stepId: "tool-9-0", tool: "send_email", summary: "sent to audit@example.com (msg-1)" },
      { stepId: "tool-9-1", tool: "write_artifact", summary: "failed: error invalid_arguments" },
    ];
    const ctx = readAgentContext(taskMessages(GOAL, {}, `\n<completed_steps>${JSON.stringify(steps)}</completed_steps>`));
    expect(ctx.calls.map((c) => [c.name, c.error === null])).toEqual([
      ["send_email", true],
      ["write_artifact", false],
    ]);
  });

  it("reads completed steps of a checkpoint leniently", () => {
    const steps = [{ stepId: "tool-3-0", tool: "send_email", arguments: { to: "a@b.c" }, output: { messageId: "m1", deduplicated: false } }];
    const ctx = readAgentContext(taskMessages(GOAL, {}, `\n<completed_steps>${JSON.stringify(steps)}</completed_steps>`));
    expect(ctx.calls).toEqual([expect.objectContaining({ name: "send_email", fromCheckpoint: true, result: { messageId: "m1", deduplicated: false } })]);
  });
});

describe("the competent agent's decisions", () => {
  const rootListing = {
    path: "node_modules",
    entries: [
      { name: ".bin", type: "dir" },
      { name: "@a", type: "dir" },
      { name: "@z", type: "dir" },
      { name: "b", type: "dir" },
      { name: "c", type: "symlink" },
      { name: "d", type: "dir" },
      { name: "file.txt", type: "file" },
    ],
    total: 7,
    nextOffset: null,
  };

  it("starts by listing node_modules", () => {
    expect(decide(taskMessages(GOAL))).toEqual([{ name: "list_files", args: { path: "node_modules", offset: 0, limit: 1000 } }]);
  });

  it("follows nextOffset when the listing is paged", () => {
    const m = turn(taskMessages(GOAL), 1, [{ name: "list_files", args: { path: "node_modules" }, result: { ...rootListing, nextOffset: 7 } }]);
    expect(decide(m)).toEqual([{ name: "list_files", args: { path: "node_modules", offset: 7, limit: 1000 } }]);
  });

  it("lists the scope folders, then records the selection and reads in one turn", () => {
    let m = turn(taskMessages(GOAL), 1, [{ name: "list_files", args: { path: "node_modules" }, result: rootListing }]);
    expect(decide(m)).toEqual([
      { name: "record_fact", args: { key: "audit:scopes", value: ["@a", "@z"] } },
      { name: "list_files", args: { path: "node_modules/@a", offset: 0, limit: 1000 } },
      { name: "list_files", args: { path: "node_modules/@z", offset: 0, limit: 1000 } },
    ]);
    m = turn(m, 2, [
      {
        name: "list_files",
        args: { path: "node_modules/@a" },
        result: { path: "node_modules/@a", entries: [{ name: "x", type: "dir" }], total: 1, nextOffset: null },
      },
      {
        name: "list_files",
        args: { path: "node_modules/@z" },
        result: { path: "node_modules/@z", entries: [{ name: "y", type: "dir" }], total: 1, nextOffset: null },
      },
    ]);
    expect(decide(m)).toEqual([
      { name: "record_fact", args: { key: "audit:scopes", value: ["@a", "@z"] } }, // its first recording had no result here
      { name: "record_fact", args: { key: "audit:scope:@a", value: ["x"] } },
      { name: "record_fact", args: { key: "audit:scope:@z", value: ["y"] } },
      { name: "record_fact", args: { key: "audit:packages", value: ["@a/x", "@z/y", "b"] } },
      { name: "read_file", args: { path: "node_modules/@a/x/package.json", offset: 0 } },
      { name: "read_file", args: { path: "node_modules/@z/y/package.json", offset: 0 } },
      { name: "read_file", args: { path: "node_modules/b/package.json", offset: 0 } },
    ]);
  });

  it("does not list scopes that cannot reach the first N", () => {
    const goal1 = GOAL.replace("first 3", "first 1");
    let m = turn(taskMessages(goal1), 1, [{ name: "list_files", args: { path: "node_modules" }, result: rootListing }]);
    m = turn(m, 2, [
      {
        name: "list_files",
        args: { path: "node_modules/@a" },
        result: { path: "node_modules/@a", entries: [{ name: "x", type: "dir" }], total: 1, nextOffset: null },
      },
    ]);
    // "@a/x" < "@z/": @z cannot contribute to the first 1, so it is never listed
    const calls = decide(m);
    expect(calls.filter((c) => c.name === "list_files")).toEqual([]);
    expect(calls).toContainEqual({ name: "record_fact", args: { key: "audit:packages", value: ["@a/x"] } });
  });

  it("uses recorded scope facts instead of listing those scopes again", () => {
    const m = turn(taskMessages(GOAL, { "audit:scopes": ["@a", "@z"], "audit:scope:@a": ["x"] }), 1, [
      { name: "list_files", args: { path: "node_modules" }, result: rootListing },
    ]);
    expect(decide(m)).toEqual([{ name: "list_files", args: { path: "node_modules/@z", offset: 0, limit: 1000 } }]);
  });

  it("records facts for finished reads, pages unfinished ones, and records UNKNOWN for a missing file", () => {
    let m = taskMessages(GOAL, { "audit:packages": ["a", "b", "c"] });
    m = turn(m, 1, [
      {
        name: "read_file",
        args: { path: "node_modules/a/package.json" },
        result: {
          path: "node_modules/a/package.json",
          content: '{"name":"a","version":"1.0.0","license":"MIT"}',
          offset: 0,
          bytes: 46,
          totalBytes: 46,
          nextOffset: null,
        },
      },
      {
        name: "read_file",
        args: { path: "node_modules/b/package.json" },
        result: { path: "node_modules/b/package.json", content: '{"name":"b",', offset: 0, bytes: 12, totalBytes: 40, nextOffset: 12 },
      },
      { name: "read_file", args: { path: "node_modules/c/package.json" }, result: { error: { code: "not_found", message: "does not exist" } } },
    ]);
    const calls = decide(m);
    expect(calls).toEqual([
      { name: "record_fact", args: { key: "license:a", value: { name: "a", version: "1.0.0", license: "MIT" } } },
      {
        name: "record_fact",
        args: { key: "license:c", value: { name: "c", version: null, license: "UNKNOWN", note: "package.json could not be read (not_found: does not exist)" } },
      },
      { name: "read_file", args: { path: "node_modules/b/package.json", offset: 12 } },
    ]);
  });

  it("writes the CSV once every package has a fact, then emails, then finishes", () => {
    const facts = {
      "audit:packages": ["a", "b"],
      "license:a": { name: "a", version: "1.0.0", license: "MIT" },
      "license:b": { name: "b", version: "2.0.0", license: "GPL-2.0" },
    };
    let m = taskMessages(GOAL, facts);
    expect(decide(m)).toEqual([
      {
        name: "write_artifact",
        args: { name: "licenses.csv", mime: "text/csv", content: "name,version,license,copyleft\na,1.0.0,MIT,false\nb,2.0.0,GPL-2.0,true\n" },
      },
    ]);
    m = turn(m, 1, [
      { name: "write_artifact", args: { name: "licenses.csv", mime: "text/csv", content: "…" }, result: { name: "licenses.csv", mime: "text/csv", bytes: 70 } },
    ]);
    const emailTurn = decide(m);
    expect(emailTurn.map((c) => c.name)).toEqual(["record_fact", "send_email"]);
    expect(emailTurn[1]!.args).toMatchObject({ to: "audit@example.com", subject: "License audit: 2 packages" });
    m = turn(m, 2, [
      { name: "record_fact", args: { key: "audit:report", value: {} }, result: { key: "audit:report", recorded: true, previous: null } },
      { name: "send_email", args: {}, result: { messageId: "m-1", deduplicated: false } },
    ]);
    const last = decide(m);
    expect(last.map((c) => c.name)).toEqual(["record_fact", "finish"]);
    expect(last[0]!.args).toEqual({ key: "audit:email", value: { to: "audit@example.com", subject: "License audit: 2 packages", messageId: "m-1" } });
    expect((last[1]!.args as { result: string }).result).toMatch(/Audited 2 packages.*1 copyleft \(b\)/);
  });

  it("is a pure function of the messages", () => {
    const m = taskMessages(GOAL);
    expect(decideNextAction("scripted", m)).toEqual(decideNextAction("scripted", structuredClone(m)));
  });

  it("declares a dead end at once for a goal it has no procedure for, saying a real provider is needed", () => {
    for (const goal of ["Say hello, then finish.", "Summarise the open pull requests and email the team."]) {
      const calls = decide(taskMessages(goal));
      expect(calls.map((c) => c.name)).toEqual(["declare_dead_end"]);
      const reason = (calls[0]!.args as { reason: string }).reason;
      expect(reason).toContain(`no procedure for the goal "${goal}"`);
      expect(reason).toContain("only plays Longhaul's demos and scenarios");
      expect(reason).toContain("needs a real model provider");
    }
    // The same from the MCP demo's agent and the exfiltration scenario, which have nothing to play either.
    expect(decide(taskMessages("Say hello, then finish."), "scripted-mcp-audit").map((c) => c.name)).toEqual(["declare_dead_end"]);
  });

  it("ends the README goal as a dead end, saying why, when the workspace has no README", () => {
    let m = taskMessages("Find out what this project is from the README in the workspace, record what it is as a fact, then finish.");
    expect(decide(m)).toEqual([{ name: "list_files", args: { path: ".", offset: 0 } }]);
    m = turn(m, 1, [{ name: "list_files", args: { path: "." }, result: { path: ".", entries: [{ name: "src", type: "dir" }], total: 1, nextOffset: null } }]);
    m = turn(m, 2, [
      {
        name: "record_fact",
        args: { key: "workspace:entries", value: { count: 1, sample: ["src/"] } },
        result: { key: "workspace:entries", recorded: true, previous: null },
      },
    ]);
    const end = decide(m);
    expect(end.map((c) => c.name)).toEqual(["declare_dead_end"]);
    expect((end[0]!.args as { reason: string }).reason).toBe("The goal asks what the project is from its README, but the workspace (1 entries) has no README.");
  });

  it("answers the README goal: lists, reads the README, records what the project is and finishes with it", () => {
    let m = taskMessages("Summarise what this project is about.");
    expect(decide(m)).toEqual([{ name: "list_files", args: { path: ".", offset: 0 } }]);
    m = turn(m, 1, [
      {
        name: "list_files",
        args: { path: "." },
        result: {
          path: ".",
          entries: [
            { name: "README.md", type: "file" },
            { name: "src", type: "dir" },
          ],
          total: 2,
          nextOffset: null,
        },
      },
    ]);
    // What the listing established goes into the working set while the README is read (a checkpoint keeps facts, not outputs).
    expect(decide(m)).toEqual([
      { name: "record_fact", args: { key: "workspace:entries", value: { count: 2, sample: ["README.md", "src/"] } } },
      { name: "read_file", args: { path: "README.md", limit: 4096 } },
    ]);
    m = turn(m, 2, [
      {
        name: "record_fact",
        args: { key: "workspace:entries", value: { count: 2, sample: ["README.md", "src/"] } },
        result: { key: "workspace:entries", recorded: true, previous: null },
      },
      {
        name: "read_file",
        args: { path: "README.md" },
        result: { path: "README.md", content: "# Longhaul\n\nRuns agents.", offset: 0, bytes: 24, totalBytes: 24, nextOffset: null },
      },
    ]);
    const notes = decide(m);
    expect(notes).toEqual([{ name: "record_fact", args: { key: "workspace:readme", value: "Longhaul" } }]);
    m = turn(
      m,
      3,
      notes.map((c) => ({ ...c, result: { key: (c.args as { key: string }).key, recorded: true, previous: null } })),
    );
    const end = decide(m);
    expect(end).toHaveLength(1);
    expect(end[0]!.name).toBe("finish");
    expect((end[0]!.args as { result: string }).result).toBe('The project is "Longhaul" (the first line of its README); the workspace has 2 entries.');
  });
});

describe("the generic agent after a segment cut", () => {
  // What a checkpoint hands the next segment (server/domain/agent-context.ts): the working set and
  // one-line summaries of the completed steps (server/domain/checkpoint.ts describeToolStep), never
  // the listing or the file themselves.
  const GOAL2 = "Summarise what this project is about.";
  const entries = [
    { name: "README.md", type: "file" },
    { name: "src", type: "dir" },
    { name: "package.json", type: "file" },
  ];
  const listed = { path: ".", entries, total: 3, nextOffset: null };
  const read = { path: "README.md", content: "# Longhaul\n\nRuns agents.", offset: 0, bytes: 24, totalBytes: 24, nextOffset: null };
  const step = (n: number, tool: string, args: unknown, output: unknown) => ({
    stepId: `tool-${n}-0`,
    tool,
    summary: describeToolStep(tool, JSON.stringify(args), { ok: true, output }),
  });
  const resumed = (workingSet: Record<string, unknown>, completedSteps: { stepId: string; tool: string; summary: string }[]) =>
    buildInitialMessages({
      systemPrompt: "You are an agent.",
      goal: GOAL2,
      workingSet,
      completedSteps,
      openQuestion: "What is the next step toward the goal?",
    });
  const finishText = (calls: { name: string; args: unknown }[]) => {
    expect(calls.map((c) => c.name)).toEqual(["finish"]);
    return (calls[0]!.args as { result: string }).result;
  };

  it("finishes from its working set: the entry count and README line it recorded, not '0 entries'", () => {
    const facts = { "workspace:entries": { count: 3, sample: ["README.md", "src/", "package.json"] }, "workspace:readme": "Longhaul" };
    const m = resumed(facts, [
      step(1, "list_files", { path: ".", offset: 0 }, listed),
      step(2, "read_file", { path: "README.md", limit: 4096 }, read),
      step(3, "record_fact", { key: "workspace:entries", value: facts["workspace:entries"] }, { key: "workspace:entries", recorded: true, previous: null }),
      step(3, "record_fact", { key: "workspace:readme", value: "Longhaul" }, { key: "workspace:readme", recorded: true, previous: null }),
    ]);
    const result = finishText(decide(m));
    expect(result).toBe('The project is "Longhaul" (the first line of its README); the workspace has 3 entries.');
    expect(result).not.toContain("0 entries");
  });

  it("a cut before anything was recorded: the step summaries are not a listing, so it lists again rather than report an empty workspace", () => {
    const m = resumed({}, [step(1, "list_files", { path: ".", offset: 0 }, listed)]);
    expect(decide(m)).toEqual([{ name: "list_files", args: { path: ".", offset: 0 } }]);
  });

  it("a resume after a loop of listings (their summaries in the checkpoint) lists afresh and reports the real count", () => {
    // What a scripted-loop run leaves behind; the resumed agent (with guidance) plays the competent one.
    const loopSteps = [1, 2, 3].map((n) => step(n, "list_files", { path: "." }, listed));
    let m = buildInitialMessages({
      systemPrompt: "",
      goal: GOAL2,
      workingSet: {},
      completedSteps: loopSteps,
      guidance: "Stop listing; read the README and finish.",
    });
    expect(decideNextAction("scripted-loop", m)?.toolCalls).toEqual([{ name: "list_files", arguments: { path: ".", offset: 0 } }]);
    m = turn(m, 4, [{ name: "list_files", args: { path: ".", offset: 0 }, result: listed }]);
    expect(decide(m, "scripted-loop")[0]).toEqual({
      name: "record_fact",
      args: { key: "workspace:entries", value: { count: 3, sample: ["README.md", "src/", "package.json"] } },
    });
  });

  it("a cut after the entries were recorded: reads the README named in the recorded sample, without listing again", () => {
    const m = resumed({ "workspace:entries": { count: 3, sample: ["README.md", "src/", "package.json"] } }, [
      step(1, "list_files", { path: ".", offset: 0 }, listed),
    ]);
    expect(decide(m)).toEqual([{ name: "read_file", args: { path: "README.md", limit: 4096 } }]);
    const after = turn(m, 4, [{ name: "read_file", args: { path: "README.md", limit: 4096 }, result: read }]);
    expect(decide(after)).toEqual([{ name: "record_fact", args: { key: "workspace:readme", value: "Longhaul" } }]);
    const done = turn(after, 5, [
      { name: "record_fact", args: { key: "workspace:readme", value: "Longhaul" }, result: { key: "workspace:readme", recorded: true, previous: null } },
    ]);
    expect(finishText(decide(done))).toBe('The project is "Longhaul" (the first line of its README); the workspace has 3 entries.');
  });
});

describe("misbehaving scripted models", () => {
  function play(model: string, turns: number) {
    let m = taskMessages(GOAL);
    const all: { name: string; args: unknown }[][] = [];
    for (let n = 0; n < turns; n++) {
      const calls = decide(m, model);
      all.push(calls);
      m = turn(
        m,
        n,
        calls.map((c) => ({
          ...c,
          result: c.name === "record_fact" ? { key: "k", recorded: true, previous: null } : { path: ".", entries: [], total: 0, nextOffset: null },
        })),
      );
    }
    return all;
  }

  it("scripted-loop repeats the same call with identical arguments", () => {
    const turns = play("scripted-loop", 4);
    expect(new Set(turns.map((t) => JSON.stringify(t))).size).toBe(1);
  });
  it("scripted-stall never records a fact and never finishes", () => {
    const calls = play("scripted-stall", 8).flat();
    expect(calls.some((c) => ["record_fact", "finish", "declare_dead_end"].includes(c.name))).toBe(false);
    expect(new Set(calls.map((c) => JSON.stringify(c))).size).toBe(8); // no identical repeats (not a loop)
  });
  it("scripted-budget records a new fact every turn and never finishes", () => {
    const turns = play("scripted-budget", 8);
    const keys = turns
      .flat()
      .filter((c) => c.name === "record_fact")
      .map((c) => (c.args as { key: string }).key);
    expect(new Set(keys).size).toBe(8);
    expect(turns.flat().some((c) => c.name === "finish")).toBe(false);
  });
  it("scripted-notes records NOTES_COUNT large notes, one per turn, then finishes", () => {
    const turns = play("scripted-notes", NOTES_COUNT + 1);
    const records = turns.slice(0, NOTES_COUNT).map((t) => t[0]!);
    expect(records.map((c) => c.name)).toEqual(Array(NOTES_COUNT).fill("record_fact"));
    expect(records.map((c) => (c.args as { key: string }).key)).toEqual(Array.from({ length: NOTES_COUNT }, (_, n) => `notes:${String(n).padStart(2, "0")}`));
    expect(records.map((c) => (c.args as { value: string }).value)).toEqual(Array.from({ length: NOTES_COUNT }, (_, n) => noteText(n)));
    expect(noteText(3)).toHaveLength(NOTE_CHARS);
    expect(turns[NOTES_COUNT]).toEqual([{ name: "finish", args: { result: `Recorded ${NOTES_COUNT} notes.` } }]);
  });
  it("scripted-notes counts a note its working set holds as a reference", () => {
    const ref = { $ref: 'checkpoint cp_1, workingSet."notes:00"', description: "9,002 chars of JSON: a string" };
    const messages = buildInitialMessages({ systemPrompt: "s", goal: GOAL, workingSet: { "notes:00": ref, "notes:01": noteText(1) } });
    expect(decide(messages, "scripted-notes")).toEqual([{ name: "record_fact", args: { key: "notes:02", value: noteText(2) } }]);
  });
  it("scripted-drift starts on task, then records an off-task open question", () => {
    const turns = play("scripted-drift", 4);
    expect(turns[0]![0]!.name).toBe("list_files");
    expect(turns[3]!.some((c) => c.name === "record_fact" && (c.args as { key: string }).key === "open_question")).toBe(true);
  });
  it("scripted-dead-end declares a dead end with a reason", () => {
    const turns = play("scripted-dead-end", 2);
    expect(turns[1]).toEqual([{ name: "declare_dead_end", args: { reason: expect.stringMatching(/cannot be completed/) } }]);
  });
  it("scripted-tool-failure sends malformed arguments every turn", () => {
    for (const calls of play("scripted-tool-failure", 4)) {
      const raw = calls[0]!.args as string;
      let valid = true;
      try {
        const parsed = JSON.parse(raw) as { path?: unknown };
        valid = typeof parsed.path === "string";
      } catch {
        valid = false;
      }
      expect(valid).toBe(false);
    }
  });
  it("unknown model names get no action", () => {
    expect(decideNextAction("gpt-4o", taskMessages(GOAL))).toBeNull();
  });
});
