import { Suspense } from "react";
import { CostsPage } from "@/components/costs/costs-page.tsx";

export const dynamic = "force-dynamic";

export default function Costs() {
  return (
    <Suspense>
      <CostsPage />
    </Suspense>
  );
}
