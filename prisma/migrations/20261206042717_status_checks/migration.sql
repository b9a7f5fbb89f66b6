-- Status-like columns get CHECK constraints: each allows exactly the closed set the code defines in
-- one exported array (the constraint named <table>_<column>_check, the array named in
-- tests/integration/status-checks.test.ts, which fails when the two differ). A nullable column still
-- allows NULL (a CHECK that evaluates to NULL passes). Free text (messages, alert kinds, assignees,
-- dead-end reasons, phases) stays unconstrained.
--
-- Safe on existing rows: every value the code writes today or wrote since the first migration was
-- checked (the repositories, the agent loop, the executor, the PL/pgSQL cost routines, the seed and
-- bench scripts, and the git history of literal values). Two values were written but missing from
-- the code's sets and are included: run.endReason tool_failure (a tool-failure escalation ends its
-- run with it) and checkpoint.reason human_edit (the checkpoint copy with a handler edited facts).
-- Columns whose older rows may hold other values are left out (agent_profile.escalationRole accepted
-- any text before roles were validated).
--
-- Each constraint is added NOT VALID (a short lock, no scan) and then validated (a scan that lets
-- reads and writes go on), so a large table is not locked while it is read. A row outside a set
-- makes VALIDATE fail with the constraint named.

ALTER TABLE "task" ADD CONSTRAINT "task_status_check" CHECK (status IN ('queued', 'running', 'waiting_for_human', 'completed', 'dead_end', 'failed', 'cancelled')) NOT VALID;
ALTER TABLE "task" ADD CONSTRAINT "task_outcome_check" CHECK (outcome IN ('completed', 'completed_with_gaps')) NOT VALID;
ALTER TABLE "run" ADD CONSTRAINT "run_cause_check" CHECK (cause IN ('initial', 'resume', 'auto_resume', 'fork')) NOT VALID;
ALTER TABLE "run" ADD CONSTRAINT "run_status_check" CHECK (status IN ('running', 'completed', 'dead_end', 'escalated', 'failed', 'cancelled')) NOT VALID;
ALTER TABLE "run" ADD CONSTRAINT "run_endReason_check" CHECK ("endReason" IN ('budget_exhausted', 'loop', 'stall', 'tool_failure', 'transient', 'saturation', 'drift', 'error', 'cancelled_by_user')) NOT VALID;
ALTER TABLE "step" ADD CONSTRAINT "step_kind_check" CHECK (kind IN ('model', 'tool', 'checkpoint', 'human')) NOT VALID;
ALTER TABLE "step" ADD CONSTRAINT "step_status_check" CHECK (status IN ('running', 'completed', 'failed')) NOT VALID;
ALTER TABLE "step" ADD CONSTRAINT "step_effortLevel_check" CHECK ("effortLevel" IN ('low', 'medium', 'high')) NOT VALID;
ALTER TABLE "step" ADD CONSTRAINT "step_effortRule_check" CHECK ("effortRule" IN ('after_human', 'after_failure', 'planning', 'side_effect', 'checkpoint', 'mechanical', 'default')) NOT VALID;
ALTER TABLE "side_effect" ADD CONSTRAINT "side_effect_status_check" CHECK (status IN ('intent', 'committed')) NOT VALID;
ALTER TABLE "model_call" ADD CONSTRAINT "model_call_status_check" CHECK (status IN ('ok', 'error')) NOT VALID;
ALTER TABLE "model_call" ADD CONSTRAINT "model_call_cause_check" CHECK (cause IN ('productive', 'retry', 'replay', 'checkpoint', 'compaction', 'discarded', 'restart')) NOT VALID;
ALTER TABLE "checkpoint" ADD CONSTRAINT "checkpoint_reason_check" CHECK (reason IN ('phase_complete', 'expensive_step', 'before_risky', 'saturation', 'on_request', 'interval', 'ceiling', 'loop', 'stall', 'request_human', 'tool_failure', 'failure', 'cancelled', 'human_edit')) NOT VALID;
ALTER TABLE "alert" ADD CONSTRAINT "alert_severity_check" CHECK (severity IN ('info', 'warning', 'critical')) NOT VALID;
ALTER TABLE "escalation" ADD CONSTRAINT "escalation_reason_check" CHECK (reason IN ('loop', 'stall', 'budget', 'saturation', 'tool_failure', 'request_human', 'risky_action', 'unresolved_effect', 'manual')) NOT VALID;
ALTER TABLE "escalation" ADD CONSTRAINT "escalation_status_check" CHECK (status IN ('open', 'decided', 'applying', 'applied')) NOT VALID;
ALTER TABLE "escalation" ADD CONSTRAINT "escalation_decision_check" CHECK (decision IN ('resume', 'approve', 'reject', 'dead_end', 'cancel')) NOT VALID;
ALTER TABLE "agent_profile" ADD CONSTRAINT "agent_profile_provider_check" CHECK (provider IN ('openai', 'openai-responses', 'anthropic', 'scripted', 'scripted-responses', 'scripted-anthropic')) NOT VALID;
ALTER TABLE "agent_profile" ADD CONSTRAINT "agent_profile_egressOnBreach_check" CHECK ("egressOnBreach" IN ('escalate', 'refuse')) NOT VALID;
ALTER TABLE "code_managed" ADD CONSTRAINT "code_managed_kind_check" CHECK (kind IN ('profile', 'mcpServer')) NOT VALID;
ALTER TABLE "batch_operation" ADD CONSTRAINT "batch_operation_action_check" CHECK (action IN ('resume', 'cancel')) NOT VALID;
ALTER TABLE "batch_item" ADD CONSTRAINT "batch_item_status_check" CHECK (status IN ('pending', 'running', 'done', 'skipped', 'failed')) NOT VALID;
ALTER TABLE "eval_run" ADD CONSTRAINT "eval_run_status_check" CHECK (status IN ('running', 'completed', 'cancelled')) NOT VALID;
ALTER TABLE "eval_run" ADD CONSTRAINT "eval_run_onEscalation_check" CHECK ("onEscalation" IN ('fail', 'wait')) NOT VALID;
ALTER TABLE "eval_cell" ADD CONSTRAINT "eval_cell_status_check" CHECK (status IN ('pending', 'running', 'passed', 'failed', 'cancelled')) NOT VALID;
ALTER TABLE "eval_cell" ADD CONSTRAINT "eval_cell_taskStatus_check" CHECK ("taskStatus" IN ('queued', 'running', 'waiting_for_human', 'completed', 'dead_end', 'failed', 'cancelled')) NOT VALID;
ALTER TABLE "idempotent_request" ADD CONSTRAINT "idempotent_request_status_check" CHECK (status IN ('running', 'done')) NOT VALID;
ALTER TABLE "trace_span_export" ADD CONSTRAINT "trace_span_export_state_check" CHECK (state IN ('sent', 'unconfirmed')) NOT VALID;
ALTER TABLE "cost_rollup" ADD CONSTRAINT "cost_rollup_outcome_check" CHECK (outcome IN ('completed', 'completed_with_gaps', 'dead_end', 'failed', 'cancelled', 'waiting', 'running')) NOT VALID;
ALTER TABLE "cost_rollup" ADD CONSTRAINT "cost_rollup_failure_check" CHECK (failure IN ('', 'transient', 'saturation', 'drift', 'dead_end', 'budget', 'loop', 'stall', 'error')) NOT VALID;
ALTER TABLE "cost_steps" ADD CONSTRAINT "cost_steps_outcome_check" CHECK (outcome IN ('completed', 'completed_with_gaps', 'dead_end', 'failed', 'cancelled', 'waiting', 'running')) NOT VALID;
ALTER TABLE "executor_run" ADD CONSTRAINT "executor_run_status_check" CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')) NOT VALID;
ALTER TABLE "executor_queue_item" ADD CONSTRAINT "executor_queue_item_kind_check" CHECK (kind IN ('discover', 'step', 'sleepWake', 'pauseTimeout')) NOT VALID;
ALTER TABLE "executor_pause" ADD CONSTRAINT "executor_pause_kind_check" CHECK (kind IN ('wait', 'cancel', 'invoke')) NOT VALID;

ALTER TABLE "task" VALIDATE CONSTRAINT "task_status_check";
ALTER TABLE "task" VALIDATE CONSTRAINT "task_outcome_check";
ALTER TABLE "run" VALIDATE CONSTRAINT "run_cause_check";
ALTER TABLE "run" VALIDATE CONSTRAINT "run_status_check";
ALTER TABLE "run" VALIDATE CONSTRAINT "run_endReason_check";
ALTER TABLE "step" VALIDATE CONSTRAINT "step_kind_check";
ALTER TABLE "step" VALIDATE CONSTRAINT "step_status_check";
ALTER TABLE "step" VALIDATE CONSTRAINT "step_effortLevel_check";
ALTER TABLE "step" VALIDATE CONSTRAINT "step_effortRule_check";
ALTER TABLE "side_effect" VALIDATE CONSTRAINT "side_effect_status_check";
ALTER TABLE "model_call" VALIDATE CONSTRAINT "model_call_status_check";
ALTER TABLE "model_call" VALIDATE CONSTRAINT "model_call_cause_check";
ALTER TABLE "checkpoint" VALIDATE CONSTRAINT "checkpoint_reason_check";
ALTER TABLE "alert" VALIDATE CONSTRAINT "alert_severity_check";
ALTER TABLE "escalation" VALIDATE CONSTRAINT "escalation_reason_check";
ALTER TABLE "escalation" VALIDATE CONSTRAINT "escalation_status_check";
ALTER TABLE "escalation" VALIDATE CONSTRAINT "escalation_decision_check";
ALTER TABLE "agent_profile" VALIDATE CONSTRAINT "agent_profile_provider_check";
ALTER TABLE "agent_profile" VALIDATE CONSTRAINT "agent_profile_egressOnBreach_check";
ALTER TABLE "code_managed" VALIDATE CONSTRAINT "code_managed_kind_check";
ALTER TABLE "batch_operation" VALIDATE CONSTRAINT "batch_operation_action_check";
ALTER TABLE "batch_item" VALIDATE CONSTRAINT "batch_item_status_check";
ALTER TABLE "eval_run" VALIDATE CONSTRAINT "eval_run_status_check";
ALTER TABLE "eval_run" VALIDATE CONSTRAINT "eval_run_onEscalation_check";
ALTER TABLE "eval_cell" VALIDATE CONSTRAINT "eval_cell_status_check";
ALTER TABLE "eval_cell" VALIDATE CONSTRAINT "eval_cell_taskStatus_check";
ALTER TABLE "idempotent_request" VALIDATE CONSTRAINT "idempotent_request_status_check";
ALTER TABLE "trace_span_export" VALIDATE CONSTRAINT "trace_span_export_state_check";
ALTER TABLE "cost_rollup" VALIDATE CONSTRAINT "cost_rollup_outcome_check";
ALTER TABLE "cost_rollup" VALIDATE CONSTRAINT "cost_rollup_failure_check";
ALTER TABLE "cost_steps" VALIDATE CONSTRAINT "cost_steps_outcome_check";
ALTER TABLE "executor_run" VALIDATE CONSTRAINT "executor_run_status_check";
ALTER TABLE "executor_queue_item" VALIDATE CONSTRAINT "executor_queue_item_kind_check";
ALTER TABLE "executor_pause" VALIDATE CONSTRAINT "executor_pause_kind_check";
