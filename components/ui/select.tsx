import type { ComponentProps } from "react";
import { cn } from "./cn.ts";
import { inputClass } from "./field.tsx";

/** One choice of a {@link Select}: value and the words shown. */
export type SelectOption = readonly [value: string, label: string];

/**
 * A native `<select>` with the shared look (native, so the keyboard, screen readers and mobile
 * pickers work as the platform makes them). `options` are `[value, label]` pairs; `placeholder`, if
 * given, is a first option with the empty value ("Any status"); extra `<option>`s may follow as
 * children. Every other prop passes through.
 */
export function Select({
  options = [],
  placeholder,
  className,
  children,
  ...props
}: Omit<ComponentProps<"select">, "children"> & { options?: readonly SelectOption[]; placeholder?: string; children?: ComponentProps<"select">["children"] }) {
  return (
    <select {...props} className={cn(inputClass, "pr-7", className)}>
      {placeholder !== undefined && <option value="">{placeholder}</option>}
      {options.map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
      {children}
    </select>
  );
}
