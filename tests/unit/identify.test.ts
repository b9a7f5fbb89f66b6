import { describe, expect, it } from "vitest";
import { DATABASE_NO_ANSWER, identify, SESSION_ENDED_MESSAGE, SIGNED_OUT_MESSAGE } from "../../server/auth/principal.ts";
import type { PrismaClient } from "../../server/db/client.ts";

// identify() without a bearer token reads only the session (the injected lookup) until it finds a
// user; these cases never reach the database, so no client is needed.
const prisma = {} as PrismaClient;
const cookie = { cookie: "longhaul.session_token=abc.def" };

describe("identify: why a request without a principal was refused", () => {
  it("a session the database cannot be asked about is 'unavailable', not 'signed out'", async () => {
    const down = Object.assign(new Error("Can't reach database server at 127.0.0.1:54329"), { code: "P1001" });
    const id = await identify({ prisma, headers: new Headers(cookie), getSessionUser: () => Promise.reject(down) });
    expect(id).toEqual({ principal: null, problem: null, unavailable: "P1001" });
  });

  it("a session lookup the database never answers (its processes stopped) is 'unavailable' once the bound passes", async () => {
    const never = () => new Promise<null>(() => undefined);
    const id = await identify({ prisma, headers: new Headers(cookie), getSessionUser: never, answerWithinMs: 50 });
    expect(id).toEqual({ principal: null, problem: null, unavailable: DATABASE_NO_ANSWER });
  });

  it("any other failure of the lookup, or no session, reads as signed out in the words the client gets", async () => {
    const none = () => Promise.resolve(null);
    expect(await identify({ prisma, headers: new Headers(cookie), getSessionUser: none })).toEqual({ principal: null, problem: SESSION_ENDED_MESSAGE });
    expect(await identify({ prisma, headers: new Headers(cookie), getSessionUser: () => Promise.reject(new Error("bad cookie")) })).toEqual({
      principal: null,
      problem: SESSION_ENDED_MESSAGE,
    });
    expect(await identify({ prisma, headers: new Headers({ "sec-fetch-site": "same-origin" }), getSessionUser: none })).toEqual({
      principal: null,
      problem: SIGNED_OUT_MESSAGE,
    });
    // A program without credentials gets the API's hint (server/api/trpc.ts), not a browser's words.
    expect(await identify({ prisma, headers: new Headers(), getSessionUser: none })).toEqual({ principal: null, problem: null });
  });
});
