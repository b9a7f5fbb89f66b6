import type { ConnectionTestResult } from "@/lib/contracts/profile.ts";

const KIND_WORDS: Record<string, string> = {
  unreachable: "Unreachable",
  unauthorized: "Key refused (401)",
  unknown_model: "Unknown model",
  missing_key: "API key variable not set",
  error: "Error",
};

/** What a "Test connection" said: ok with the latency (and any note), or the problem in words; nothing before a test. */
export function ConnectionResult({ result, error }: { result: ConnectionTestResult | undefined; error?: string | undefined }) {
  if (error)
    return (
      <p role="alert" className="text-sm text-red-700" data-testid="connection-result">
        {error}
      </p>
    );
  if (!result) return null;
  return result.ok ? (
    <p className="text-sm text-emerald-800" data-testid="connection-result">
      Connected: {result.model} at {result.baseUrl} answered a streamed request with a tool in {result.latencyMs} ms.
      {result.note && <span className="block text-amber-800">Note: {result.note}</span>}
    </p>
  ) : (
    <p role="alert" className="text-sm text-red-700" data-testid="connection-result">
      {KIND_WORDS[result.kind] ?? result.kind}: {result.message}
    </p>
  );
}
