"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TokenTable } from "@/components/auth/token-table.tsx";
import { labelledMessage } from "@/components/ui/field-labels.ts";
import { useTRPC } from "@/components/trpc.tsx";

/** /admin → API tokens: every user's tokens (never the secret) with Revoke; a refusal is shown until the next revoke succeeds. */
export function TokensSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.admin.tokens.queryOptions());
  const revoke = useMutation(trpc.account.revokeToken.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries(trpc.admin.pathFilter()) }));
  return (
    <section className="space-y-3" aria-label="API tokens">
      <h2 className="text-lg font-semibold">API tokens</h2>
      {revoke.isError && (
        <p className="text-sm text-red-700" role="alert">
          {labelledMessage(revoke.error.message, { tokenId: null })}
        </p>
      )}
      <TokenTable tokens={tokens.data} showOwner onRevoke={(tokenId) => revoke.mutate({ tokenId })} />
    </section>
  );
}
