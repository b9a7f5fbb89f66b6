/** What each escalation reason means, for the card's header (every reason the agent loop opens). */
export const REASONS: Record<string, string> = {
  loop: "Loop: the same tool call with identical arguments, again",
  stall: "Stall: no new fact for several steps",
  budget: "Budget ceiling reached",
  saturation: "Context saturated and compaction cannot make room",
  tool_failure: "A tool keeps failing",
  request_human: "The agent asks for a decision",
  risky_action: "Approval needed: a risky action",
  unresolved_effect: "Unknown outcome: an external call may or may not have happened",
  manual: "Escalated by an operator",
};

/** Short reason words for lists ("unresolved effect" → "unknown outcome"). */
export const REASON_SHORT: Record<string, string> = {
  budget: "budget ceiling",
  tool_failure: "tool failure",
  request_human: "question",
  risky_action: "approval",
  unresolved_effect: "unknown outcome",
};
