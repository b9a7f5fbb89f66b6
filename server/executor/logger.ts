import { pino, stdTimeFunctions } from "pino";

/**
 * The executor's logging: one call per notable event, with a message and the ids it concerns.
 *
 * Two formats, chosen by the process (main.ts: `EXECUTOR_LOG_FORMAT`; startExecutor: `logFormat`):
 * - `json`: one JSON object per line, written by pino (https://getpino.io):
 *   `{"level":"info","time":"2026-12-01T12:00:00.000Z","pid":…,"hostname":…,"name":"executor","msg":"…","runId":"…","stepId":"…","fnId":"…"}`.
 *   `level` is the label (`debug|info|warn|error`), `time` ISO 8601 UTC; the id fields appear
 *   where known (see {@link LogFields}). For log shippers and `jq`.
 * - `text`: the message alone, one line each, `WARN `/`ERROR ` in front of those levels (no
 *   timestamp, no fields: the messages name their run and step already). For people: a terminal,
 *   `npm start`'s combined console. A tiny formatter, not pino (pino's own pretty printer is a
 *   separate package, pino-pretty, with its own dependencies).
 * Lines under `level` (default `info`) are dropped in both formats.
 */

/** Log levels, lowest first. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = "json" | "text";

/** Ids and figures attached to a log line (JSON format only); undefined values are left out. */
export interface LogFields {
  /** Executor run id (ULID). */
  runId?: string;
  /** Hashed step id of a targeted request, or `step` for a discovery request. */
  stepId?: string;
  /** Composite function id (`<appId>-<fnId>`). */
  fnId?: string;
  appId?: string;
  eventId?: string;
  /** Queue item job id. */
  jobId?: string;
  attempt?: number;
  /** HTTP status of the app's response (0 = no response in time). */
  status?: number;
  durationMs?: number;
  [key: string]: unknown;
}

/** What engine modules log through. */
export interface ExecutorLogger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/**
 * Creates a logger writing `format` lines to `write` (one call per line, without the newline).
 * @param write line sink; default stderr (`[executor] ` in front of text lines, nothing in front of JSON ones)
 * @param level lowest level written (default `info`)
 * @throws Error for an unknown format or level (names the value)
 */
export function createExecutorLogger({
  format,
  level = "info",
  write,
}: {
  format: LogFormat;
  level?: LogLevel;
  write?: (line: string) => void;
}): ExecutorLogger {
  if (!LOG_LEVELS.includes(level)) throw new Error(`log level "${String(level)}" is not one of ${LOG_LEVELS.join(", ")}`);
  if (format === "text") {
    const sink = write ?? ((line: string) => process.stderr.write(`[executor] ${line}\n`));
    const min = LOG_LEVELS.indexOf(level);
    const at =
      (l: LogLevel, prefix: string) =>
      (msg: string): void => {
        if (LOG_LEVELS.indexOf(l) >= min) sink(prefix + msg);
      };
    return { debug: at("debug", "DEBUG "), info: at("info", ""), warn: at("warn", "WARN "), error: at("error", "ERROR ") };
  }
  if (format !== "json") throw new Error(`log format "${String(format)}" is not one of json, text`);
  // stderr is a pipe or a file here: writes are synchronous on Linux, so no line is lost when the
  // process exits right after (a crash point, process.exit in main.ts).
  const sink = write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = pino(
    {
      name: "executor",
      level,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (chunk: string) => sink(chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk) },
  );
  const at =
    (l: LogLevel) =>
    (msg: string, fields?: LogFields): void => {
      if (fields) logger[l](fields, msg);
      else logger[l](msg);
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
