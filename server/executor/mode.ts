import { verifyApiBearer, verifyBearer } from "./util.ts";

/**
 * How an executor authenticates, decided once at start: signed mode (Inngest Cloud's rules: requests
 * to the app signed, SDK calls and the read API need a bearer, one event key) or dev mode (the dev
 * server's rules: anything is accepted). docs/INNGEST-PROTOCOL.md §2.2 (registration) and §2.9
 * (signing and dev mode).
 */
export interface ExecutorMode {
  dev: boolean;
  /** Sent as `x-inngest-server-kind` on every request and reply: `dev` or `cloud`. */
  serverKind: "dev" | "cloud";
  /** INNGEST_SIGNING_KEY (always set in signed mode; in dev mode only when given). */
  signingKey: string | undefined;
  /** INNGEST_EVENT_KEY accepted on `POST /e/{key}` (always set in signed mode; unused in dev mode). */
  eventKey: string | undefined;
  /** Bearer check of SDK calls (`/fn/register`, `/v1/checkpoint/…`): the hashed signing key; true for anything in dev mode. */
  sdkAuthorized: (authorization: string | undefined) => boolean;
  /** Bearer check of the read API (`/v1/runs/…`, `/v1/events/…`, `/v0/gql`): the raw or hashed signing key; true for anything in dev mode. */
  apiAuthorized: (authorization: string | undefined) => boolean;
}

/**
 * The {@link ExecutorMode} of `dev` (default false) with these keys.
 * @throws Error in signed mode without `signingKey` or without `eventKey`.
 */
export function executorMode({ dev = false, signingKey, eventKey }: { dev?: boolean; signingKey?: string; eventKey?: string }): ExecutorMode {
  if (!dev && !signingKey) throw new Error("signingKey is required in signed mode (pass dev: true for dev mode)");
  if (!dev && !eventKey) throw new Error("eventKey is required in signed mode (pass dev: true for dev mode)");
  return {
    dev,
    serverKind: dev ? "dev" : "cloud",
    signingKey,
    eventKey,
    sdkAuthorized: (authorization) => dev || verifyBearer(authorization, signingKey!),
    apiAuthorized: (authorization) => dev || verifyApiBearer(authorization, signingKey!),
  };
}
