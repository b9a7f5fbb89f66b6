import { RoleGate } from "@/components/auth/role-gate.tsx";
import { LaunchForm } from "@/components/tasks/launch-form.tsx";

export const dynamic = "force-dynamic";

export default function NewTaskPage() {
  return (
    <RoleGate needs={["operator"]} what="Launching a task">
      <LaunchForm />
    </RoleGate>
  );
}
