import { Suspense } from "react";
import { EvalsPage } from "@/components/evals/evals-page.tsx";

export const dynamic = "force-dynamic";

export default function Evals() {
  return (
    <Suspense>
      <EvalsPage />
    </Suspense>
  );
}
