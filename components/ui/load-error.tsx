"use client";

import { useEffect, useRef } from "react";
import { DATABASE_RESTARTING_TEXT, DATABASE_RETRY_MS, isDatabaseUnavailable } from "./api-error.ts";

/**
 * The page-level "Could not load …" banner with a Retry button (task list, /costs, the run page, the
 * inbox): `what` names what failed ("tasks", "costs"), `error` is the query's error, `onRetry`
 * refetches. While the database is down or restarting (the API's 503) it says so instead and retries
 * by itself until the API answers.
 */
export function LoadError({ what, error, onRetry, className = "mb-3" }: { what: string; error: { message: string }; onRetry: () => void; className?: string }) {
  if (isDatabaseUnavailable(error)) return <DatabaseRestarting onRetry={onRetry} className={className} />;
  return (
    <div role="alert" className={`${className} flex items-center justify-between rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800`}>
      <span>
        Could not load {what}: {error.message}
      </span>
      <button className="font-medium underline" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}

/**
 * "The database is restarting — this page will retry": calls `onRetry` every DATABASE_RETRY_MS
 * while shown (the query's refetch; the banner goes once it answers).
 */
export function DatabaseRestarting({ onRetry, className = "mb-3" }: { onRetry: () => void; className?: string }) {
  const retry = useRef(onRetry);
  useEffect(() => {
    retry.current = onRetry;
  }, [onRetry]);
  useEffect(() => {
    const timer = window.setInterval(() => retry.current(), DATABASE_RETRY_MS);
    return () => window.clearInterval(timer);
  }, []);
  return (
    <div
      role="status"
      data-testid="database-restarting"
      className={`${className} rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950`}
    >
      {DATABASE_RESTARTING_TEXT}
    </div>
  );
}
