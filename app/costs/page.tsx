import { Suspense } from "react";
import { RoleGate } from "@/components/auth/role-gate.tsx";
import { CostsPage } from "@/components/costs/costs-page.tsx";

export const dynamic = "force-dynamic";

export default function Costs() {
  return (
    <RoleGate needs={["manager"]} what="Costs (cost per completed task, waste, resume savings)">
      <Suspense>
        <CostsPage />
      </Suspense>
    </RoleGate>
  );
}
