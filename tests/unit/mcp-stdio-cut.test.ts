import { describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LonghaulStdioTransport, MCP_CUT_META_KEY } from "../../server/tools/mcp/stdio-transport.ts";

// A result cut while read (server/tools/mcp/stdio-transport.ts) says so in its `_meta`. The server's
// message is untrusted: whatever it sent as `_meta`, the report is added to an object.

/** The first message a one-line server (`node -e`) sends for `result`, read with a 1 KiB limit (its strings cut to 64 bytes). */
async function cutResult(result: unknown): Promise<JSONRPCMessage> {
  const script = `process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: 1, result: ${JSON.stringify(result)} }) + "\\n"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`;
  const transport = new LonghaulStdioTransport({ command: process.execPath, args: ["-e", script], env: {} }, { maxMessageBytes: 1024, cutStringBytes: 64 });
  const received = new Promise<JSONRPCMessage>((resolve, reject) => {
    transport.onmessage = resolve;
    transport.onerror = reject;
  });
  await transport.start();
  try {
    return await received;
  } finally {
    await transport.close();
  }
}

describe("a result cut while read", () => {
  const content = [{ type: "text", text: "x".repeat(4096) }];

  it("keeps the server's own _meta beside the cut report", async () => {
    const message = await cutResult({ content, _meta: { progressToken: 7 } });
    expect(message).toMatchObject({ result: { _meta: { progressToken: 7, [MCP_CUT_META_KEY]: { totalBytes: expect.any(Number) } } } });
  });

  it("replaces a _meta that is not an object with the report alone", async () => {
    const message = await cutResult({ content, _meta: "progress" });
    expect((message as { result: { _meta: unknown } }).result._meta).toEqual({
      [MCP_CUT_META_KEY]: expect.objectContaining({ totalBytes: expect.any(Number) }),
    });
  });
});
