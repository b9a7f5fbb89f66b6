import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../support/ports.ts";

// The entry point as the start script runs it: tsx server/llm/scripted/main.ts with MODEL_PORT.

const root = path.resolve(import.meta.dirname, "../..");

describe("scripted model server entry point", () => {
  it("listens on 127.0.0.1:MODEL_PORT, answers, and exits 0 on SIGTERM", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", "server/llm/scripted/main.ts"], {
      cwd: root,
      env: { ...process.env, MODEL_PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      let stderr = "";
      await new Promise<void>((resolve, reject) => {
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes("listening on")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`exited early with ${code}: ${stderr}`)));
      });
      expect(stderr).toContain(`http://127.0.0.1:${port}/v1`);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
