import { Suspense } from "react";
import { RunPage } from "@/components/tasks/run-page.tsx";

export const dynamic = "force-dynamic";

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense>
      <RunPage taskId={id} />
    </Suspense>
  );
}
