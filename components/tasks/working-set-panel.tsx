/**
 * The run page's Working set tab, in components/tasks/working-set/: the panel (working-set-panel.tsx),
 * its sections (filter-bar.tsx, current-facts.tsx, history-list.tsx), the state hooks
 * (use-working-set.ts, use-key-filter-draft.ts) and pure labels. Re-exported here for its importers.
 */
export { WorkingSetPanel } from "./working-set/working-set-panel.tsx";
