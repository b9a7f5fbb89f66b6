import { LaunchForm } from "@/components/tasks/launch-form.tsx";

export const dynamic = "force-dynamic";

export default function NewTaskPage() {
  return <LaunchForm />;
}
