"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import type React from "react";
import { useEffect, useRef, useState } from "react";
import { useHydrated } from "@/components/ui/use-hydrated.ts";
import { ROW_HEIGHT } from "./types.ts";

/**
 * The timeline's scrolling state: fixed-height virtual rows over `items` (keyed by their `key`),
 * and "Follow live" — while on and nothing is selected, the newest row is kept in view; scrolling up
 * turns it off, reaching the bottom turns it back on. The selected step row (`selectedKey`) is
 * scrolled into view. Returns the scroll element's ref and onScroll handler, the virtualizer, the
 * follow switch (switched by the user's own scrolling only: `userScrollProps` go on the scroll element), and `hydrated` (false while the server's HTML is hydrated: there is no scroll
 * element yet, components/ui/use-hydrated.ts).
 */
/** How long after the user's last scrolling input (wheel, touch, pointer, key) a scroll event counts as theirs, ms. */
const USER_SCROLL_MS = 1_000;

export function useTimelineScroll({ items, selectedKey }: { items: readonly { type: string; key: string }[]; selectedKey: string | null }) {
  const parentRef = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  const hydrated = useHydrated();
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (i) => items[i]?.key ?? i,
  });

  useEffect(() => {
    if (follow && items.length > 0 && !selectedKey) virtualizer.scrollToIndex(items.length - 1, { align: "end" });
  }, [items.length, follow, selectedKey, virtualizer, hydrated]);

  useEffect(() => {
    if (!selectedKey) return;
    const i = items.findIndex((it) => it.type === "step" && it.key === selectedKey);
    if (i >= 0) virtualizer.scrollToIndex(i, { align: "auto" });
  }, [selectedKey, items, virtualizer, hydrated]);

  // Only the user's own scrolling switches "Follow live": the list's scrolls to the newest row (and
  // the virtual list's adjustments after them) fire scroll events too, and one of those landing at
  // the bottom right after the user switched it off turned it straight back on.
  const userScrollUntil = useRef(0);
  const onUserScroll = () => {
    userScrollUntil.current = Date.now() + USER_SCROLL_MS;
  };
  const onScroll = (e: React.UIEvent<HTMLDivElement>) => {
    if (Date.now() > userScrollUntil.current) return;
    const el = e.currentTarget;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < ROW_HEIGHT;
    if (!atBottom && follow) setFollow(false);
    if (atBottom && !follow) setFollow(true);
  };
  /** Handlers of the user's scrolling input (wheel, touch, pointer on the scroll bar, keys) for the scroll element. */
  const userScrollProps = { onWheel: onUserScroll, onTouchMove: onUserScroll, onPointerDown: onUserScroll, onKeyDown: onUserScroll };
  return { parentRef, virtualizer, follow, setFollow, onScroll, userScrollProps, hydrated };
}
