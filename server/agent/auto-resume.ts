import type { AutoResumePorts } from "./ports.ts";

/**
 * Opens an automatic resume after a transient failure when the profile allows more (`max` runs of
 * cause `auto_resume` per task). Returns the new run, or null. The caller sends its run.started
 * event as a step.
 */
export async function openAutoResume({
  ports,
  taskId,
  max,
}: {
  ports: AutoResumePorts;
  taskId: string;
  max: number;
}): Promise<{ runId: string; checkpointId: string | null } | null> {
  const used = await ports.countAutoResumes(taskId);
  if (used >= max) return null;
  return ports.resume(taskId);
}
