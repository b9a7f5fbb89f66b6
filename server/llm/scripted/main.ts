/**
 * Entry point of the scripted model server: `tsx server/llm/scripted/main.ts`. Listens on
 * 127.0.0.1:MODEL_PORT (default 8787) and stops cleanly on SIGINT/SIGTERM.
 */
import { startScriptedModelServer } from "./server.ts";

const port = Number(process.env.MODEL_PORT ?? 8787);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`MODEL_PORT must be a TCP port number, got "${process.env.MODEL_PORT}"\n`);
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
