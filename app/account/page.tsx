import { AccountPage } from "@/components/account/account-page.tsx";
import { RoleGate } from "@/components/auth/role-gate.tsx";

export const dynamic = "force-dynamic";

export default function Account() {
  return (
    <RoleGate needs={[]} what="Your account">
      <AccountPage />
    </RoleGate>
  );
}
