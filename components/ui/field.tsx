"use client";

import { useId, type ComponentProps, type ReactNode } from "react";
import { cn } from "./cn.ts";

/** The look of every text, number and date input in a form or filter bar (one place to change it). */
export const inputClass =
  "rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900 placeholder:text-zinc-400 disabled:bg-zinc-50 disabled:text-zinc-500 aria-invalid:border-red-500";

/**
 * A labelled form control: the small label above the control, an optional hint and error below
 * it. The label wraps the control, so the control needs no id to be named by it (and its name is
 * the label's words alone). The hint and the error sit outside the label; to have the control
 * described by them, pass `children` as a function of the `aria-describedby` value. A control that
 * is not labelable (a button group) belongs in a `<fieldset>` instead.
 */
export function Field({
  label,
  hint,
  error,
  className,
  children,
  testId,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  className?: string;
  children: ReactNode | ((describedBy: string | undefined) => ReactNode);
  testId?: string;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cn("flex flex-col gap-1", className)} data-testid={testId}>
      <label className="flex flex-col gap-1">
        <span className="text-xs font-medium text-zinc-600">{label}</span>
        {typeof children === "function" ? children(describedBy) : children}
      </label>
      {hint && (
        <span id={hintId} className="text-xs text-zinc-500">
          {hint}
        </span>
      )}
      {error && (
        <span id={errorId} role="alert" className="text-xs text-red-700">
          {error}
        </span>
      )}
    </div>
  );
}

/** A text-like `<input>` with the shared look; every other prop passes through. */
export function TextInput({ className, ...props }: ComponentProps<"input">) {
  return <input {...props} className={cn(inputClass, className)} />;
}
