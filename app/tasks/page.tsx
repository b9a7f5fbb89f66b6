import { Suspense } from "react";
import { TaskList } from "@/components/tasks/task-list.tsx";

export const dynamic = "force-dynamic";

export default function TasksPage() {
  return (
    <Suspense>
      <TaskList />
    </Suspense>
  );
}
