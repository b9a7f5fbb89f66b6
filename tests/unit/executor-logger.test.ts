import { describe, expect, it } from "vitest";
import { createExecutorLogger } from "../../server/executor/logger.ts";

describe("executor logger (server/executor/logger.ts)", () => {
  it("json: one JSON object per line with level, ISO time, msg and the ids given", () => {
    const lines: string[] = [];
    const log = createExecutorLogger({ format: "json", write: (l) => lines.push(l) });
    log.info("run r1 discovery attempt 0 → 206", { runId: "r1", stepId: "step", fnId: "app-fn", attempt: 0, status: 206, unset: undefined });
    log.warn('run r1 failed: "boom"', { runId: "r1" });
    log.error("lease failed: x");
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).not.toContain("\n");
    const [a, b, c] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(a).toMatchObject({
      level: "info",
      name: "executor",
      msg: "run r1 discovery attempt 0 → 206",
      runId: "r1",
      stepId: "step",
      fnId: "app-fn",
      attempt: 0,
      status: 206,
    });
    expect(a).not.toHaveProperty("unset");
    expect(new Date(String(a!.time)).toISOString()).toBe(a!.time);
    expect(b).toMatchObject({ level: "warn", msg: 'run r1 failed: "boom"', runId: "r1" });
    expect(c).toMatchObject({ level: "error", msg: "lease failed: x" });
    expect(c).not.toHaveProperty("runId");
  });

  it("drops lines under the level, in both formats", () => {
    for (const format of ["json", "text"] as const) {
      const lines: string[] = [];
      const log = createExecutorLogger({ format, level: "warn", write: (l) => lines.push(l) });
      log.debug("d");
      log.info("i");
      log.warn("w");
      log.error("e");
      expect(lines, format).toHaveLength(2);
    }
    const debug: string[] = [];
    const log = createExecutorLogger({ format: "text", level: "debug", write: (l) => debug.push(l) });
    log.debug("d");
    log.info("i");
    expect(debug).toEqual(["DEBUG d", "i"]);
  });

  it("text: the message alone, WARN/ERROR in front of those levels, no fields", () => {
    const lines: string[] = [];
    const log = createExecutorLogger({ format: "text", write: (l) => lines.push(l) });
    log.info("run r1 completed", { runId: "r1" });
    log.warn("app unreachable", { runId: "r1" });
    log.error("lease failed: x");
    expect(lines).toEqual(["run r1 completed", "WARN app unreachable", "ERROR lease failed: x"]);
  });

  it("refuses an unknown format or level, naming it", () => {
    expect(() => createExecutorLogger({ format: "yaml" as "json" })).toThrow(/log format "yaml"/);
    expect(() => createExecutorLogger({ format: "json", level: "trace" as "debug" })).toThrow(/log level "trace"/);
  });
});
