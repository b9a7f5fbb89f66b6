import { RoleGate } from "@/components/auth/role-gate.tsx";
import { Suspense } from "react";
import { TaskList } from "@/components/tasks/task-list.tsx";

export const dynamic = "force-dynamic";

export default function TasksPage() {
  return (
    <RoleGate needs={[]} what="The task list">
      <Suspense>
        <TaskList />
      </Suspense>
    </RoleGate>
  );
}
