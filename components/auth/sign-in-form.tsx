"use client";

import { formText } from "./form-value.ts";
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/contracts/limits.ts";

/** Only same-site paths are followed after sign-in (an open redirect would hand a session's first page to anyone). */
function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/tasks";
}

async function post(path: string, body: unknown): Promise<{ ok: boolean; data: Record<string, unknown> }> {
  const res = await fetch(`/api/auth${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: res.ok, data };
}

/**
 * /sign-in: email + password (sign in, or create an account — the very first becomes admin with
 * every role), and "Sign in with <provider>" when an OIDC provider is configured.
 */
export function SignInForm() {
  const trpc = useTRPC();
  const options = useQuery(trpc.account.signInOptions.queryOptions());
  const next = safeNext(useSearchParams().get("next"));
  const [mode, setMode] = useState<"sign-in" | "sign-up" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const effective = mode ?? (options.data?.firstUser ? "sign-up" : "sign-in");

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const body = { email: formText(form, "email"), password: formText(form, "password"), ...(effective === "sign-up" ? { name: formText(form, "name") } : {}) };
    const res = await post(effective === "sign-up" ? "/sign-up/email" : "/sign-in/email", body).catch(() => ({
      ok: false,
      data: { message: "the app cannot be reached" },
    }));
    setBusy(false);
    if (!res.ok) {
      setError(typeof res.data.message === "string" ? res.data.message : "sign-in failed");
      return;
    }
    window.location.href = next;
  };

  const oidc = async () => {
    if (!options.data?.oidc) return;
    const res = await post("/sign-in/oauth2", { providerId: options.data.oidc.providerId, callbackURL: next, errorCallbackURL: "/sign-in" });
    if (res.ok && typeof res.data.url === "string") window.location.href = res.data.url;
    else setError(typeof res.data.message === "string" ? res.data.message : "single sign-on is not available");
  };

  // Until the server says whether any account exists, neither "Sign in" nor "Create an account" is
  // shown: on a fresh install the first answer is "create", and a flash of "Sign in" misleads.
  if (options.isPending && mode === null) {
    return (
      <div className="mx-auto mt-16 max-w-sm rounded-lg border border-zinc-200 bg-white p-6 shadow-sm" aria-busy="true" data-testid="sign-in-loading">
        <div className="h-6 w-2/3 animate-pulse rounded bg-zinc-200" />
        <div className="mt-4 h-24 animate-pulse rounded bg-zinc-100" />
        <span className="sr-only">Loading the sign-in form…</span>
      </div>
    );
  }
  return (
    <div className="mx-auto mt-16 max-w-sm rounded-lg border border-zinc-200 bg-white p-6 shadow-sm">
      <h1 className="text-xl font-semibold">{effective === "sign-up" ? "Create an account" : "Sign in to Longhaul"}</h1>
      {options.data?.firstUser && (
        <p className="mt-2 text-sm text-emerald-800" data-testid="first-user-note">
          No account exists yet: the first one becomes the admin, with every role.
        </p>
      )}
      {options.data?.oidc && (
        <button type="button" className="mt-4 w-full rounded bg-zinc-900 px-3 py-2 text-sm font-medium text-white" onClick={() => void oidc()}>
          Sign in with {options.data.oidc.name}
        </button>
      )}
      {options.data?.password !== false && (
        <form className="mt-4 space-y-3" onSubmit={(e) => void submit(e)}>
          {effective === "sign-up" && (
            <label className="block text-sm">
              Name
              <input name="name" required maxLength={100} autoComplete="name" className="mt-1 w-full rounded border border-zinc-300 bg-white px-2 py-1" />
            </label>
          )}
          <label className="block text-sm">
            Email
            <input
              name="email"
              type="email"
              required
              maxLength={200}
              autoComplete="email"
              className="mt-1 w-full rounded border border-zinc-300 bg-white px-2 py-1"
            />
          </label>
          <label className="block text-sm">
            Password
            <input
              name="password"
              type="password"
              required
              minLength={PASSWORD_MIN_LENGTH}
              maxLength={PASSWORD_MAX_LENGTH}
              autoComplete={effective === "sign-up" ? "new-password" : "current-password"}
              className="mt-1 w-full rounded border border-zinc-300 bg-white px-2 py-1"
            />
          </label>
          {error && (
            <p className="text-sm text-red-700" role="alert">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy} className="w-full rounded bg-zinc-900 px-3 py-2 text-sm font-medium text-white disabled:opacity-50">
            {effective === "sign-up" ? "Create account" : "Sign in"}
          </button>
        </form>
      )}
      {options.data?.signUp && (
        <button type="button" className="mt-3 text-sm text-zinc-600 underline" onClick={() => setMode(effective === "sign-up" ? "sign-in" : "sign-up")}>
          {effective === "sign-up" ? "I have an account: sign in" : "No account yet: create one"}
        </button>
      )}
    </div>
  );
}
