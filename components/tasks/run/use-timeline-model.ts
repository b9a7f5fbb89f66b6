"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { decodeStepRows } from "../step-rows.ts";
import { buildSegments, isFiltering, stepMatches, timelineItems } from "../step-filter.ts";
import type { StepFactCounts, TimelineStep } from "../timeline.tsx";
import { forkPoint, runsById, waterfallWindow } from "./run-derive.ts";
import type { RunParams } from "./use-run-params.ts";
import type { RunQueries } from "./use-run-queries.ts";

/** Adds `key` to the set, or takes it out when it is there (a new Set: React state). */
function toggled(prev: Set<string>, key: string): Set<string> {
  const next = new Set(prev);
  if (next.has(key)) next.delete(key);
  else next.add(key);
  return next;
}

/**
 * The timeline's model: step rows decoded, cut into segments, filtered (the text part on the
 * server), folded, and flattened into the virtual list's items; the collapsed segments and expanded
 * repeat folds (local state); the selected step, the waterfall's window and the fork point. Opening
 * a step (deep link, j/k, the waterfall) expands its segment and, once, its fold.
 */
export function useTimelineModel(taskId: string, q: RunQueries, params: RunParams) {
  const trpc = useTRPC();
  const { filter, selectedKey, runParam } = params;
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [expandedFolds, setExpandedFolds] = useState<Set<string>>(() => new Set());
  const rows: TimelineStep[] = useMemo(() => decodeStepRows(q.steps.data), [q.steps.data]);
  const textSearch = useQuery({
    ...trpc.task.searchSteps.queryOptions({ taskId, text: filter.text }),
    enabled: !!filter.text,
    placeholderData: (prev) => prev,
  });
  const textMatches = useMemo(() => (filter.text && textSearch.data ? new Set(textSearch.data) : null), [filter.text, textSearch.data]);
  const factMarks = useMemo(() => {
    const marks = new Map<string, StepFactCounts>();
    for (const s of q.factSummary.data?.steps ?? []) if (s.stepId) marks.set(`${s.runId}:${s.stepId}`, s);
    return marks;
  }, [q.factSummary.data]);

  const taskRuns = q.task.data?.runs;
  const runs = useMemo(() => runsById(taskRuns ?? [], q.checkpoints.data ?? []), [taskRuns, q.checkpoints.data]);
  const runId = runParam && runs.has(runParam) ? runParam : null;
  const stepsData = q.steps.data;
  const listWindow = useMemo(() => (stepsData ? { before: stepsData.before, firstSegment: stepsData.firstSegment } : undefined), [stepsData]);
  const segments = useMemo(() => buildSegments(rows, listWindow), [rows, listWindow]);
  const segmentsInView = useMemo(() => segments.filter((g) => !runId || g.runId === runId), [segments, runId]);
  const filtering = isFiltering(filter);
  const items = useMemo(
    () =>
      timelineItems(segments, {
        runId,
        collapsed,
        matches: (s) => stepMatches(s, filter, textMatches),
        filtering,
        runCount: runs.size,
        expandedFolds,
        before: listWindow?.before,
      }),
    [segments, runId, collapsed, filter, textMatches, filtering, runs.size, expandedFolds, listWindow],
  );
  const stepItems = useMemo(() => items.filter((i) => i.type === "step"), [items]);
  const matchCount = useMemo(
    () => (filtering ? rows.filter((s) => (!runId || s.runId === runId) && stepMatches(s, filter, textMatches)).length : null),
    [filtering, rows, runId, filter, textMatches],
  );
  const selectedStep = useMemo(() => rows.find((s) => `${s.runId}:${s.stepId}` === selectedKey) ?? null, [rows, selectedKey]);
  const toggleSegment = useCallback((key: string) => setCollapsed((prev) => toggled(prev, key)), []);
  const toggleFold = useCallback((key: string) => setExpandedFolds((prev) => toggled(prev, key)), []);
  const collapseAll = useCallback((all: boolean) => setCollapsed(all ? new Set(segments.map((g) => g.key)) : new Set()), [segments]);

  // Opening a step folded into identical repeats (deep link, the waterfall) expands its fold.
  // Only once per selection: folding it again by hand stays folded.
  const autoExpanded = useRef<string | null>(null);
  useEffect(() => {
    if (!selectedKey || autoExpanded.current === selectedKey || items.some((i) => i.type === "step" && i.key === selectedKey)) return;
    const fold = items.find((i) => i.type === "fold" && !i.expanded && i.fold.steps.some((s) => `${s.runId}:${s.stepId}` === selectedKey));
    if (fold) {
      autoExpanded.current = selectedKey;
      toggleFold(fold.key);
    }
  }, [selectedKey, items, toggleFold]);
  // Opening a step (deep link, j/k, the waterfall) expands its segment.
  useEffect(() => {
    if (!selectedStep) return;
    const seg = segments.find((g) => g.runId === selectedStep.runId && g.steps.includes(selectedStep));
    if (seg && collapsed.has(seg.key)) toggleSegment(seg.key);
  }, [selectedStep, segments, collapsed, toggleSegment]);

  const waterfall = useMemo(() => waterfallWindow(segments, runId, selectedStep, runs), [segments, runId, selectedStep, runs]);
  const forkFrom = useMemo(() => forkPoint(selectedStep, rows, q.checkpoints.data, taskRuns ?? []), [selectedStep, rows, q.checkpoints.data, taskRuns]);

  return {
    rows,
    /** Steps of the task before the first listed one (the list holds the newest steps). */
    before: listWindow?.before ?? 0,
    runs,
    runId,
    segments,
    segmentsInView,
    items,
    stepItems,
    filtering,
    matchCount,
    selectedStep,
    factMarks,
    textSearch,
    waterfall,
    forkFrom,
    toggleSegment,
    toggleFold,
    collapseAll,
  };
}

export type TimelineModel = ReturnType<typeof useTimelineModel>;
