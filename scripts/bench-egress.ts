/**
 * `npx tsx scripts/bench-egress.ts [--reads 500] [--body-kib 64] [--rounds 20]` — what the egress gate
 * costs per gated call: the secret scan (secretlint's recommended preset + Longhaul's extra rules)
 * of a body of `--body-kib` KiB plus the verbatim-run search against `--reads` read_file outputs of
 * ~2 KiB each (the license demo's package.json reads). No database: `assessEgress` on plain data.
 * Prints progress to stderr and one JSON line last: {reads, bodyBytes, rounds, gateMsP50, gateMsP95}.
 */
import { performance } from "node:perf_hooks";
import { assessEgress } from "../server/tools/egress-gate.ts";
import { getTool } from "../server/tools/registry.ts";
import { defineScript, parseScriptArgs } from "./lib/script-args.ts";

const SCRIPT = defineScript({
  program: "npx tsx scripts/bench-egress.ts",
  summary: "What the egress gate costs per gated call: the secret scan of a body plus the verbatim-run search against earlier reads.",
  flags: {
    reads: { type: "string", value: "<n>", description: "read_file outputs of ~2 KiB to search", int: { min: 0, max: 100_000 }, default: 500 },
    "body-kib": { type: "string", value: "<KiB>", description: "size of the gated body", int: { min: 1, max: 64 * 1024 }, default: 64 },
    rounds: { type: "string", value: "<n>", description: "timed gated calls (after 2 warm-up calls)", int: { min: 1, max: 100_000 }, default: 20 },
  },
  examples: ["npx tsx scripts/bench-egress.ts --reads 500 --body-kib 64"],
});
const values = parseScriptArgs(SCRIPT);
const readsN = values.reads;
const bodyBytes = values["body-kib"] * 1024;
const rounds = values.rounds;
const word = (i: number) => `w${(i * 2654435761) % 100_003}`;
const reads = Array.from({ length: readsN }, (_, r) => ({
  path: `node_modules/p${r}/package.json`,
  offset: 0,
  content: Array.from({ length: 300 }, (_, i) => word(r * 1000 + i)).join(" "),
}));
let body = "";
for (let i = 0; body.length < bodyBytes; i++) body += `${word(i + 7_777_777)} `;
body = body.slice(0, bodyBytes);
const policy = { emailDomains: ["example.com"], emailRecipients: [], httpOrigins: [], onBreach: "escalate" as const };
const tool = getTool("send_email")!;
const times: number[] = [];
for (let i = 0; i < rounds + 2; i++) {
  const t0 = performance.now();
  const verdict = await assessEgress({ tool, args: { to: "a@example.com", subject: "Audit", body }, policy, reads });
  if (i >= 2) times.push(performance.now() - t0);
  if (verdict.action !== "allow") console.error(`unexpected finding: ${verdict.action === "escalate" ? verdict.summary : ""}`);
}
times.sort((a, b) => a - b);
const pick = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 10) / 10;
console.error(`${rounds} gated calls, body ${bodyBytes} bytes, ${readsN} reads`);
console.log(JSON.stringify({ reads: readsN, bodyBytes, rounds, gateMsP50: pick(0.5), gateMsP95: pick(0.95) }));
