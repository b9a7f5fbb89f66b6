import { EvalRunPage } from "@/components/evals/eval-run-page.tsx";

export const dynamic = "force-dynamic";

export default async function EvalRun({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ compareTo?: string }> }) {
  const { id } = await params;
  const { compareTo } = await searchParams;
  return <EvalRunPage evalRunId={id} {...(compareTo ? { compareTo } : {})} />;
}
