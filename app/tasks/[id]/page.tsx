import { Suspense } from "react";
import { RoleGate } from "@/components/auth/role-gate.tsx";
import { RunPage } from "@/components/tasks/run-page.tsx";

export const dynamic = "force-dynamic";

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <RoleGate needs={[]} what="A task's run page">
      <Suspense>
        <RunPage taskId={id} />
      </Suspense>
    </RoleGate>
  );
}
