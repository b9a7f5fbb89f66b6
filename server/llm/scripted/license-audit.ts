import { listing, reading, succeeded, type AgentAction, type AgentContext, type PastCall } from "./context.ts";
import { fumbles, misreadAddress } from "./effort.ts";
import { auditSummary, isCopyleft, licenseCounts, licensesCsv, packageLicenseFromPrefix, packageLicenseFromText, type PackageLicense } from "./licenses.ts";

/**
 * The competent agent's plan for the demo goal "Audit the licenses of the first N packages in
 * node_modules …, email the summary to <address>" (docs/CONTRACTS.md). A pure function of the context:
 * everything it knows comes from the working set and the tool results in the request, so it picks up
 * where a checkpoint left off. Fact keys it writes: `audit:scopes` and `audit:scope:<@scope>` (what
 * the listings found), `audit:packages` (the selected names, in order),
 * `license:<name>` ({name, version, license[, note]}), `audit:report` (after the CSV), `audit:email`.
 */

export interface LicenseAuditGoal {
  /** How many packages; null = all of them. */
  limit: number | null;
  /** Where to email the summary; null when the goal names no address. */
  to: string | null;
  /** Where to POST the summary as JSON ("post the summary as JSON to <url>"); null = nowhere. */
  postTo: string | null;
}

export const ARTIFACT_NAME = "licenses.csv";
const READS_PER_TURN = 5;
const LISTS_PER_TURN = 4;
const LIST_LIMIT = 1000;

/** Recognises the demo goal; null for any other goal. */
export function parseLicenseAuditGoal(goal: string): LicenseAuditGoal | null {
  if (!/licen[cs]e/i.test(goal) || !/node_modules/i.test(goal)) return null;
  const limit = /first\s+(\d+)/i.exec(goal)?.[1] ?? /(\d+)\s+packages/i.exec(goal)?.[1];
  const to = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/.exec(goal)?.[0] ?? null;
  const postTo = /post the summary as JSON to (https?:\/\/\S+?)[,.]?(?:\s|$)/i.exec(goal)?.[1] ?? null;
  return { limit: limit ? Number(limit) : null, to, postTo };
}

function isDirLike(entry: { name: string; type: string }): boolean {
  return (entry.type === "dir" || entry.type === "symlink") && !entry.name.startsWith(".");
}

/** Code-point order (not UTF-16 code units, which is what `<` compares): the order docs/CONTRACTS.md sorts names in. */
export function compareCodePoints(a: string, b: string): number {
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  for (;;) {
    const cx = x.next();
    const cy = y.next();
    if (cx.done || cy.done) return cx.done && cy.done ? 0 : cx.done ? -1 : 1;
    const d = cx.value.codePointAt(0)! - cy.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}
const byCodePoint = compareCodePoints;
const PERMANENT_READ_ERROR = /not_found|not_a_file|not_a_directory|path_outside_workspace|enoent/i;

type Selection = { done: true; packages: string[]; records: AgentAction["toolCalls"] } | { done: false; action: AgentAction };

function stringArray(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : null;
}

/**
 * Works out the selected packages from the listings: top-level folders of node_modules plus the
 * folders of each `@scope`, sorted by full name in code-point order, the first `limit`. Scopes are
 * listed a few a turn in order of their `@scope/` prefix, and listing stops once the limit-th name
 * known is smaller than the next scope's prefix (every name in that scope sorts after its prefix).
 * What each listing established is recorded as a fact (`audit:scopes`, `audit:scope:<@scope>`) in
 * the next turn, so the working set grows while the agent explores and a resumed run need not list
 * those scopes again.
 */
function selectPackages(ctx: AgentContext, limit: number | null): Selection {
  const root = listing(ctx.calls, "node_modules");
  if (!root.complete) {
    if (root.errors >= 2 || (root.errors === 1 && PERMANENT_READ_ERROR.test(root.lastError?.code ?? ""))) {
      return {
        done: false,
        action: {
          content: null,
          toolCalls: [
            {
              name: "declare_dead_end",
              arguments: { reason: `node_modules cannot be listed (${root.lastError?.code}: ${root.lastError?.message}); there are no packages to audit.` },
            },
          ],
        },
      };
    }
    const args: Record<string, unknown> = { path: "node_modules", offset: root.nextOffset };
    if (root.errors === 0) args.limit = LIST_LIMIT;
    return {
      done: false,
      action: {
        content: root.nextOffset === 0 ? "I'll start by listing node_modules to find the packages." : "The listing continues; fetching the next page.",
        toolCalls: [{ name: "list_files", arguments: args }],
      },
    };
  }
  const records: AgentAction["toolCalls"] = [];
  const record = (key: string, value: unknown) => {
    if (!(key in ctx.facts) && recordFailures(ctx.calls, key) < 2) records.push({ name: "record_fact", arguments: { key, value } });
  };
  const known: string[] = [];
  const scopes: string[] = [];
  for (const entry of root.items) {
    if (!isDirLike(entry)) continue;
    if (entry.name.startsWith("@")) scopes.push(entry.name);
    else known.push(entry.name);
  }
  scopes.sort((a, b) => byCodePoint(`${a}/`, `${b}/`));
  if (scopes.length > 0) record("audit:scopes", scopes);
  const pending: { path: string; offset: number; limit: boolean }[] = [];
  for (const scope of scopes) {
    if (limit !== null && known.length >= limit) {
      const sorted = [...known].sort(byCodePoint);
      if (byCodePoint(sorted[limit - 1]!, `${scope}/`) < 0) break;
    }
    const key = `audit:scope:${scope}`;
    const recorded = stringArray(ctx.facts[key]);
    if (recorded) {
      for (const name of recorded) known.push(`${scope}/${name}`);
      continue;
    }
    const state = listing(ctx.calls, `node_modules/${scope}`);
    if (state.complete) {
      const names = state.items.filter(isDirLike).map((entry) => entry.name);
      for (const name of names) known.push(`${scope}/${name}`);
      record(key, names);
    } else if (state.errors < 2) {
      pending.push({ path: `node_modules/${scope}`, offset: state.nextOffset, limit: state.errors === 0 });
    }
  }
  if (pending.length > 0) {
    const batch = pending.slice(0, LISTS_PER_TURN);
    return {
      done: false,
      action: {
        content: `Listing the scope folder${batch.length === 1 ? "" : "s"} ${batch.map((p) => p.path.slice("node_modules/".length)).join(", ")}.`,
        toolCalls: [
          ...records,
          ...batch.map((p) => ({
            name: "list_files",
            arguments: p.limit ? { path: p.path, offset: p.offset, limit: LIST_LIMIT } : { path: p.path, offset: p.offset },
          })),
        ],
      },
    };
  }
  known.sort(byCodePoint);
  return { done: true, packages: limit === null ? known : known.slice(0, limit), records };
}

function storedPackages(ctx: AgentContext): string[] | null {
  return stringArray(ctx.facts["audit:packages"]);
}

function asLicense(value: unknown, fallbackName: string): PackageLicense | null {
  if (!value || typeof value !== "object") return null;
  const record = value as Record<string, unknown>;
  if (typeof record.license !== "string") return null;
  return {
    name: typeof record.name === "string" ? record.name : fallbackName,
    version: typeof record.version === "string" ? record.version : null,
    license: record.license,
    ...(typeof record.note === "string" ? { note: record.note } : {}),
  };
}

function lastSuccess(calls: readonly PastCall[], tool: string, match: (call: PastCall) => boolean = () => true): PastCall | undefined {
  return [...calls].reverse().find((call) => call.name === tool && succeeded(call) && match(call));
}

function failures(calls: readonly PastCall[], tool: string): number {
  let n = 0;
  for (const call of calls) if (call.name === tool && call.error) n++;
  return n;
}

/**
 * How many times recording `key` failed, where a rejection of the arguments (`invalid_arguments`:
 * key too long, value over 16 KiB) counts double: sending the same arguments again cannot help, so
 * the agent gives up on that fact at once instead of retrying it.
 */
function recordFailures(calls: readonly PastCall[], key: string): number {
  let n = 0;
  for (const call of calls) {
    if (call.name === "record_fact" && call.error && call.args?.key === key) n += call.error.code === "invalid_arguments" ? 2 : 1;
  }
  return n;
}

/** The next action of the competent agent on the license-audit goal. */
export function decideLicenseAudit(ctx: AgentContext, goal: LicenseAuditGoal): AgentAction {
  const calls: AgentAction["toolCalls"] = [];
  let packages = storedPackages(ctx);
  const notes: string[] = [];
  if (!packages) {
    const selection = selectPackages(ctx, goal.limit);
    if (!selection.done) return selection.action;
    packages = selection.packages;
    calls.push(...selection.records);
    if (packages.length === 0) {
      return {
        content: null,
        toolCalls: [{ name: "declare_dead_end", arguments: { reason: "node_modules contains no packages, so there is nothing to audit." } }],
      };
    }
    if (recordFailures(ctx.calls, "audit:packages") < 2) calls.push({ name: "record_fact", arguments: { key: "audit:packages", value: packages } });
    notes.push(`Selected ${packages.length} packages (${packages[0]} … ${packages[packages.length - 1]}).`);
  }

  // Per package: a recorded fact, or a finished read to record, or a read to make.
  const rows: PackageLicense[] = [];
  const toRead: { name: string; offset: number }[] = [];
  let missing = 0;
  for (const name of packages) {
    const key = `license:${name}`;
    const fact = asLicense(ctx.facts[key], name);
    if (fact) {
      rows.push({ ...fact, name }); // the CSV names the package as selected (the folder), even for npm aliases
      continue;
    }
    const path = `node_modules/${name}/package.json`;
    const read = reading(ctx.calls, path);
    let info: PackageLicense | null = null;
    if (read.complete) info = packageLicenseFromText(read.content, name);
    else if (read.content && read.nextOffset > 0) info = packageLicenseFromPrefix(read.content, name); // enough of a large file
    if (!info && !read.complete && (read.errors >= 2 || (read.errors === 1 && PERMANENT_READ_ERROR.test(read.lastError?.code ?? "")))) {
      info = { name, version: null, license: "UNKNOWN", note: `package.json could not be read (${read.lastError?.code}: ${read.lastError?.message})` };
    }
    if (info) {
      if (recordFailures(ctx.calls, key) >= 2) {
        rows.push({ ...info, name }); // recording keeps failing: report it anyway rather than loop
        continue;
      }
      calls.push({ name: "record_fact", arguments: { key, value: info } });
      if (info.note) notes.push(`${name}: ${info.note}; recording UNKNOWN.`);
      missing++;
      continue;
    }
    missing++;
    toRead.push({ name, offset: read.nextOffset });
  }
  // At low effort the last reads may be skipped: the agent goes straight to the report and the email
  // with what it has (a missed fact before a risky call; scripted/effort.ts).
  const recordedNow = calls.filter((c) => c.name === "record_fact" && String((c.arguments as Record<string, unknown>).key).startsWith("license:"));
  if (
    toRead.length > 0 &&
    toRead.length <= READS_PER_TURN &&
    rows.length + recordedNow.length > 0 &&
    goal.to &&
    !("audit:report" in ctx.facts) &&
    fumbles(ctx, "last_reads")
  ) {
    const known = [...rows, ...recordedNow.map((c) => (c.arguments as { value: PackageLicense }).value)];
    return {
      content: `That should be all of them. Writing ${ARTIFACT_NAME} and emailing the summary to ${goal.to}.`,
      toolCalls: [
        ...calls,
        { name: "write_artifact", arguments: { name: ARTIFACT_NAME, mime: "text/csv", content: licensesCsv(known) } },
        {
          name: "record_fact",
          arguments: {
            key: "audit:report",
            value: { artifact: ARTIFACT_NAME, rows: known.length, copyleft: known.filter((r) => isCopyleft(r.license)).length },
          },
        },
        { name: "send_email", arguments: { to: goal.to, subject: `License audit: ${known.length} packages`, body: auditSummary(known, ARTIFACT_NAME) } },
      ],
    };
  }
  for (const item of toRead.slice(0, READS_PER_TURN)) {
    calls.push({ name: "read_file", arguments: { path: `node_modules/${item.name}/package.json`, offset: item.offset } });
  }
  if (missing > 0) {
    const recorded = calls.filter((c) => c.name === "record_fact" && String((c.arguments as Record<string, unknown>).key).startsWith("license:")).length;
    const reads = Math.min(toRead.length, READS_PER_TURN);
    const parts = [...notes];
    if (recorded > 0) parts.push(`Recording the license of ${recorded} package${recorded === 1 ? "" : "s"}.`);
    if (reads > 0) parts.push(`Reading ${reads} more package.json file${reads === 1 ? "" : "s"} (${packages.length - missing} of ${packages.length} done).`);
    return { content: parts.join(" ") || null, toolCalls: calls };
  }
  if (calls.length > 0) return { content: notes.join(" ") || null, toolCalls: calls };

  // Every package has its license: the CSV, then the email, then finish.
  const counts = licenseCounts(rows);
  const copyleft = rows.filter((row) => isCopyleft(row.license)).map((row) => row.name);
  // A checkpoint's completed steps carry only a summary (server/domain/checkpoint.ts describeToolStep:
  // `write_artifact {name: "licenses.csv", …} → …`, no arguments): a checkpoint taken between the CSV
  // and its `audit:report` fact must not make the agent write it again.
  const isReport = (c: PastCall) => {
    if (c.args?.name === ARTIFACT_NAME) return true;
    const summary = (c.result as { summary?: unknown } | undefined)?.summary;
    return c.summaryOnly && typeof summary === "string" && summary.startsWith("write_artifact ") && summary.includes(`"${ARTIFACT_NAME}"`);
  };
  const reportDone = "audit:report" in ctx.facts || lastSuccess(ctx.calls, "write_artifact", isReport) !== undefined;
  if (!reportDone) {
    if (failures(ctx.calls, "write_artifact") >= 2) {
      return {
        content: null,
        toolCalls: [
          {
            name: "declare_dead_end",
            arguments: { reason: `Writing ${ARTIFACT_NAME} failed twice; the audit results are in the working set but the report cannot be produced.` },
          },
        ],
      };
    }
    return {
      content: `All ${rows.length} licenses are recorded. Writing ${ARTIFACT_NAME}.`,
      toolCalls: [{ name: "write_artifact", arguments: { name: ARTIFACT_NAME, mime: "text/csv", content: licensesCsv(rows) } }],
    };
  }
  const subject = `License audit: ${rows.length} packages`;
  const emailCall = lastSuccess(ctx.calls, "send_email");
  // A human rejected the email (a risky action): finish without it rather than try again.
  const emailRejected = ctx.calls.find((c) => c.name === "send_email" && c.error?.code === "rejected_by_human");
  const emailDone = "audit:email" in ctx.facts || emailCall !== undefined || emailRejected !== undefined;
  if (!emailDone) {
    if (!goal.to) {
      return {
        content: null,
        toolCalls: [{ name: "declare_dead_end", arguments: { reason: "The goal asks to email the summary but names no address to send it to." } }],
      };
    }
    if (failures(ctx.calls, "send_email") >= 2) {
      return {
        content: null,
        toolCalls: [{ name: "declare_dead_end", arguments: { reason: `Sending the summary to ${goal.to} failed twice; ${ARTIFACT_NAME} is written.` } }],
      };
    }
    const toolCalls: AgentAction["toolCalls"] = [];
    if (!("audit:report" in ctx.facts)) {
      toolCalls.push({
        name: "record_fact",
        arguments: { key: "audit:report", value: { artifact: ARTIFACT_NAME, rows: rows.length, copyleft: copyleft.length } },
      });
    }
    // At low effort the address may be copied wrong from the goal (scripted/effort.ts).
    const to = fumbles(ctx, "recipient") ? misreadAddress(goal.to) : goal.to;
    toolCalls.push({ name: "send_email", arguments: { to, subject, body: auditSummary(rows, ARTIFACT_NAME) } });
    return { content: `${ARTIFACT_NAME} is written. Emailing the summary to ${to}.`, toolCalls };
  }
  const toolCalls: AgentAction["toolCalls"] = [];
  const recordEmail = () => {
    if ("audit:email" in ctx.facts) return;
    if (emailRejected && !emailCall) {
      toolCalls.push({
        name: "record_fact",
        arguments: { key: "audit:email", value: { to: goal.to, sent: false, rejected: emailRejected.error?.message ?? "rejected by a handler" } },
      });
      return;
    }
    const messageId =
      emailCall && typeof (emailCall.result as { messageId?: unknown }).messageId === "string" ? (emailCall.result as { messageId: string }).messageId : null;
    toolCalls.push({ name: "record_fact", arguments: { key: "audit:email", value: { to: goal.to, subject, messageId } } });
  };
  // Then, when the goal asks for it, POST the summary (an effect on an external system).
  const postCall = goal.postTo ? lastSuccess(ctx.calls, "http_post") : undefined;
  if (goal.postTo && !("audit:post" in ctx.facts) && postCall === undefined) {
    if (failures(ctx.calls, "http_post") >= 2) {
      return {
        content: null,
        toolCalls: [
          {
            name: "declare_dead_end",
            arguments: { reason: `Posting the summary to ${goal.postTo} failed twice; ${ARTIFACT_NAME} is written and the summary emailed.` },
          },
        ],
      };
    }
    recordEmail();
    toolCalls.push({
      name: "http_post",
      arguments: {
        url: goal.postTo,
        body: {
          packages: rows.length,
          copyleft: copyleft.length,
          licenses: Object.fromEntries(counts.map((c) => [c.license, c.count])),
          report: ARTIFACT_NAME,
        },
      },
    });
    return { content: `Posting the summary to ${goal.postTo}.`, toolCalls };
  }
  const top = counts
    .slice(0, 3)
    .map((c) => `${c.license} ${c.count}`)
    .join(", ");
  const result = `Audited ${rows.length} packages (${top}${counts.length > 3 ? ", …" : ""}); ${copyleft.length} copyleft${copyleft.length > 0 ? ` (${copyleft.join(", ")})` : ""}. CSV in ${ARTIFACT_NAME}; ${emailRejected && !emailCall ? `the summary email to ${goal.to ?? "the requested address"} was not sent (rejected by a handler)` : `summary emailed to ${goal.to ?? "the requested address"}`}${goal.postTo ? ` and posted to ${goal.postTo}` : ""}.`;
  recordEmail();
  if (goal.postTo && !("audit:post" in ctx.facts)) {
    const answer = (postCall?.result ?? {}) as { status?: unknown; confirmedBy?: unknown };
    toolCalls.push({
      name: "record_fact",
      arguments: {
        key: "audit:post",
        value: {
          url: goal.postTo,
          status: typeof answer.status === "number" ? answer.status : null,
          ...(typeof answer.confirmedBy === "string" ? { confirmedBy: answer.confirmedBy } : {}),
        },
      },
    });
  }
  // What the goal asked for and was not done, stated as the finish tool asks (result.gaps).
  const gaps =
    emailRejected && !emailCall
      ? [`the summary email to ${goal.to ?? "the requested address"} was not sent: ${emailRejected.error?.message.split(". ")[0] ?? "rejected by a handler"}`]
      : [];
  toolCalls.push({ name: "finish", arguments: gaps.length ? { result, gaps } : { result } });
  return { content: "The audit is complete.", toolCalls };
}
