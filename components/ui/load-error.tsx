"use client";

/**
 * The page-level "Could not load …" banner with a Retry button (task list, /costs): `what` names
 * what failed ("tasks", "costs"), `message` is the API's error text, `onRetry` refetches.
 */
export function LoadError({ what, message, onRetry, className = "mb-3" }: { what: string; message: string; onRetry: () => void; className?: string }) {
  return (
    <div role="alert" className={`${className} flex items-center justify-between rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800`}>
      <span>
        Could not load {what}: {message}
      </span>
      <button className="font-medium underline" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}
