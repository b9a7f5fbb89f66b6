/**
 * Entry point of the scripted model server: `tsx server/llm/scripted/main.ts`. Listens on
 * 127.0.0.1:MODEL_PORT (default 8787) and stops cleanly on SIGINT/SIGTERM.
 */
import { env } from "../../env.ts";
import { startScriptedModelServer } from "./server.ts";

let port: number;
try {
  port = env().MODEL_PORT;
} catch (error) {
  // The validated environment names the bad variable (e.g. "MODEL_PORT: Too big: expected number to be <=65535").
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const server = await startScriptedModelServer({ port });
process.stderr.write(`[scripted-model] listening on ${server.baseUrl}\n`);
let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`[scripted-model] ${signal}: stopping\n`);
  void server.stop().then(() => process.exit(0));
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
