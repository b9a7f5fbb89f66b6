import { Suspense } from "react";
import { preload } from "react-dom";
import { RunPage } from "@/components/tasks/run-page.tsx";

export const dynamic = "force-dynamic";

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // The step list is the page's biggest request: the browser fetches it while the scripts load, and
  // the run page's tRPC query (the same GET URL: httpLink, superjson input {json: {taskId}}) finds it ready.
  preload(`/api/trpc/task.steps?input=${encodeURIComponent(JSON.stringify({ json: { taskId: id } }))}`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <Suspense>
      <RunPage taskId={id} />
    </Suspense>
  );
}
