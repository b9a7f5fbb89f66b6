import { Suspense } from "react";
import { RoleGate } from "@/components/auth/role-gate.tsx";
import { EscalationInbox } from "@/components/escalations/escalation-inbox.tsx";

export const dynamic = "force-dynamic";

export default function EscalationsPage() {
  return (
    <RoleGate needs={["handler"]} what="The escalation inbox (claiming and deciding)">
      <Suspense>
        <EscalationInbox />
      </Suspense>
    </RoleGate>
  );
}
