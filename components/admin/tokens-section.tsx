"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TokenTable } from "@/components/auth/token-table.tsx";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";
import { useTRPC } from "@/components/trpc.tsx";

/** /admin → API tokens: every user's tokens (never the secret) with Revoke; the last revoke's outcome on one line. */
export function TokensSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.admin.tokens.queryOptions());
  const status = useActionStatus({ tokenId: null });
  const revoke = useMutation(
    trpc.account.revokeToken.mutationOptions({
      onMutate: status.start,
      onSuccess: () => {
        status.done("Token revoked: it is refused from now on.");
        void queryClient.invalidateQueries(trpc.admin.pathFilter());
      },
      onError: status.fail,
    }),
  );
  return (
    <section className="space-y-3" aria-label="API tokens">
      <h2 className="text-lg font-semibold">API tokens</h2>
      <StatusLine line={status.line} testId="token-action" />
      <TokenTable tokens={tokens.data} showOwner onRevoke={(tokenId) => revoke.mutate({ tokenId })} />
    </section>
  );
}
