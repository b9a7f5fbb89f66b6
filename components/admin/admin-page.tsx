"use client";

import { AdminSectionNav, useAdminSection } from "./admin-section-nav.tsx";
import { AuditSection } from "./audit/audit-section.tsx";
import { McpServersSection } from "./mcp-servers.tsx";
import { ProfileEgressSection } from "./profile-egress.tsx";
import { ProfilesSection } from "./profiles-section.tsx";
import { TokensSection } from "./tokens-section.tsx";
import { UsersSection } from "./users/users-section.tsx";

/**
 * /admin in sections, one at a time, chosen in the URL (`?section=users|tokens|profiles|mcp|audit`):
 * users and their roles, every API token, agent profiles with their egress policy, MCP servers,
 * and the audit log with a filter.
 */
export function AdminPage() {
  const section = useAdminSection();
  return (
    <div className="space-y-6 p-8">
      <h1 className="text-2xl font-semibold">Admin</h1>
      <AdminSectionNav current={section} />
      {section === "users" && <UsersSection />}
      {section === "tokens" && <TokensSection />}
      {section === "profiles" && (
        <>
          <ProfilesSection />
          <ProfileEgressSection />
        </>
      )}
      {section === "mcp" && <McpServersSection />}
      {section === "audit" && <AuditSection />}
    </div>
  );
}
