/**
 * The run page's step timeline, in components/tasks/timeline/: the virtual list (timeline.tsx), its
 * rows (step-row.tsx, group-rows.tsx: run, segment and ×N fold headers), icons, the scrolling and
 * "Follow live" state (use-timeline-scroll.ts) and its types. Re-exported here for its importers.
 */
export { Timeline } from "./timeline/timeline.tsx";
export { causeLabel, type StepFactCounts, type TimelineRun, type TimelineStep } from "./timeline/types.ts";
