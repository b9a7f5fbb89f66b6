import { Suspense } from "react";
import { AdminPage } from "@/components/admin/admin-page.tsx";
import { RoleGate } from "@/components/auth/role-gate.tsx";

export const dynamic = "force-dynamic";

export default function Admin() {
  return (
    <RoleGate needs={["admin"]} what="The admin page (users, roles, tokens, profiles, MCP servers, audit log)">
      <Suspense>
        <AdminPage />
      </Suspense>
    </RoleGate>
  );
}
