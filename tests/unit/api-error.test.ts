import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../components/ui/api-error.ts";
import { databaseUnavailableMessage } from "../../server/db/db-errors.ts";

// While the database is down the API answers 503 SERVICE_UNAVAILABLE naming it
// (tests/integration/database-unavailable.test.ts); the pages recognise that answer in one place
// and say "The database is not answering (down, restarting or stopped) — this page retries by itself" instead of a generic error.

const DB_MESSAGE = "the database is unavailable (down or restarting): try again in a moment";

/** The client error tRPC builds from an error answer of the API (its default error shape). */
function clientError(message: string, code: string, httpStatus: number): unknown {
  return TRPCClientError.from({ error: { message, code: -32603, data: { code, httpStatus, path: "task.list" } } });
}

describe("isDatabaseUnavailable", () => {
  it("recognises the API's 503 answer naming the database", () => {
    expect(isDatabaseUnavailable(clientError(DB_MESSAGE, "SERVICE_UNAVAILABLE", 503))).toBe(true);
    // A database that accepts connections and answers nothing (its processes stopped): the same page behaviour.
    for (const code of ["no_answer", "P1001"])
      expect(isDatabaseUnavailable(clientError(databaseUnavailableMessage(code), "SERVICE_UNAVAILABLE", 503))).toBe(true);
  });

  it("does not take other errors for it", () => {
    expect(isDatabaseUnavailable(clientError("Internal error", "INTERNAL_SERVER_ERROR", 500))).toBe(false);
    expect(isDatabaseUnavailable(clientError("task task_x not found", "NOT_FOUND", 404))).toBe(false);
    // A 503 of something else (an executor, a model provider) is not the database.
    expect(isDatabaseUnavailable(clientError("the executor is unavailable", "SERVICE_UNAVAILABLE", 503))).toBe(false);
    expect(isDatabaseUnavailable(new Error(DB_MESSAGE))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isDatabaseUnavailable("database")).toBe(false);
  });
});
