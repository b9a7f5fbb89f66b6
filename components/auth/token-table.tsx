"use client";

import type { Role } from "@/lib/contracts/roles.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

/** One API token as the account and admin pages list it (never the token itself: only its prefix). */
export interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  roles: readonly Role[] | readonly string[];
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The owner, shown when `showOwner` is set; `null` is the local CLI's token kept by `npm start`. */
  user?: { name: string } | null;
}

/**
 * The table of API tokens shared by /account (my tokens) and /admin (everyone's): name, prefix,
 * roles, expiry day, last use (UTC, minutes), and Revoke for a token not yet revoked.
 */
export function TokenTable({
  tokens,
  showOwner = false,
  onRevoke,
}: {
  tokens: readonly TokenRow[] | undefined;
  showOwner?: boolean;
  onRevoke: (tokenId: string) => void;
}) {
  return (
    <table className="w-full text-left text-sm">
      <thead className="text-xs text-zinc-500">
        <tr>
          <th>Name</th>
          {showOwner ? <th>Owner</th> : null}
          <th>Token</th>
          <th>Roles</th>
          <th>Expires</th>
          <th>Last used</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {tokens?.map((t) => (
          <tr key={t.id} className="border-t border-zinc-200" data-token-id={t.id}>
            {/* Long names without spaces wrap rather than widening the column past Revoke. */}
            <td className="max-w-[16rem] [overflow-wrap:anywhere]">
              <SafeText text={t.name} />
            </td>
            {showOwner ? (
              <td className="max-w-[16rem] [overflow-wrap:anywhere]">
                <SafeText text={t.user?.name ?? "local CLI"} />
              </td>
            ) : null}
            <td className="font-mono">{t.prefix}…</td>
            <td>{t.roles.join(", ")}</td>
            <td>{t.expiresAt.toISOString().slice(0, 10)}</td>
            <td>{t.lastUsedAt ? `${t.lastUsedAt.toISOString().slice(0, 16).replace("T", " ")} UTC` : "never"}</td>
            <td>
              {t.revokedAt ? (
                "revoked"
              ) : (
                <button type="button" className="underline" onClick={() => onRevoke(t.id)}>
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
