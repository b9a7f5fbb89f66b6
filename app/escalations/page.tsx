import { Suspense } from "react";
import { EscalationInbox } from "@/components/escalations/escalation-inbox.tsx";

export const dynamic = "force-dynamic";

export default function EscalationsPage() {
  return (
    <Suspense>
      <EscalationInbox />
    </Suspense>
  );
}
