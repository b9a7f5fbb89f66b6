import { describe, expect, it } from "vitest";
import { resolveProvider, type ProviderConfig } from "../../server/llm/provider.ts";

/**
 * The key rule: Longhaul's own key (OPENAI_API_KEY, ANTHROPIC_API_KEY) goes only where Longhaul's
 * own configuration points it — the provider's API or the operator's OPENAI_BASE_URL /
 * ANTHROPIC_BASE_URL — or to a profile that names it in `apiKeyEnv`. A profile pointing anywhere
 * else without `apiKeyEnv` sends no key (before: the key went to any base URL a profile named).
 */
describe("the API key rule", () => {
  const config = (over: Partial<ProviderConfig> = {}): ProviderConfig => ({ MODEL_PORT: 8787, ...over });
  const keys = config({ OPENAI_API_KEY: "sk-org", ANTHROPIC_API_KEY: "sk-ant-org" });
  const variables = { OPENAI_API_KEY: "sk-org", ANTHROPIC_API_KEY: "sk-ant-org", TEAM_KEY: "sk-team" };

  it("never sends OPENAI_API_KEY to a base URL the profile names", () => {
    for (const baseUrl of ["http://127.0.0.1:9999/v1", "https://collector.example.com/v1", "https://api.openai.com.evil.example/v1"]) {
      const r = resolveProvider({ endpoint: { provider: "openai", baseUrl }, config: keys, variables });
      expect(r.apiKey, baseUrl).toBeNull();
      expect(r.keyWithheld).toBe("OPENAI_API_KEY");
    }
    const responses = resolveProvider({ endpoint: { provider: "openai-responses", baseUrl: "http://127.0.0.1:9999/v1" }, config: keys, variables });
    expect(responses.apiKey).toBeNull();
  });

  it("sends it to OpenAI's API and to OPENAI_BASE_URL as the operator set it, whoever names them", () => {
    expect(resolveProvider({ endpoint: { provider: "openai" }, config: keys, variables }).apiKey).toBe("sk-org");
    expect(resolveProvider({ endpoint: { provider: "openai", baseUrl: "https://API.openai.com/v1/" }, config: keys, variables }).apiKey).toBe("sk-org");
    const proxy = config({ OPENAI_API_KEY: "sk-org", OPENAI_BASE_URL: "https://llm-proxy.corp.example/v1" });
    expect(resolveProvider({ endpoint: { provider: "openai" }, config: proxy, variables }).apiKey).toBe("sk-org");
    expect(resolveProvider({ endpoint: { provider: "openai", baseUrl: "https://llm-proxy.corp.example:443/v1" }, config: proxy, variables }).apiKey).toBe(
      "sk-org",
    );
    expect(
      resolveProvider({ endpoint: { provider: "openai", baseUrl: "https://llm-proxy.corp.example/other/v1" }, config: proxy, variables }).apiKey,
    ).toBeNull();
  });

  it("sends a key the profile names explicitly wherever the profile points", () => {
    expect(
      resolveProvider({ endpoint: { provider: "openai", baseUrl: "http://127.0.0.1:9999/v1", apiKeyEnv: "OPENAI_API_KEY" }, config: keys, variables }).apiKey,
    ).toBe("sk-org");
    expect(
      resolveProvider({ endpoint: { provider: "openai", baseUrl: "http://127.0.0.1:9999/v1", apiKeyEnv: "TEAM_KEY" }, config: keys, variables }).apiKey,
    ).toBe("sk-team");
  });

  it("applies the same rule to ANTHROPIC_API_KEY with the anthropic provider, and never crosses the keys", () => {
    const own = resolveProvider({ endpoint: { provider: "anthropic" }, config: keys, variables });
    expect(own).toMatchObject({ baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-org", wireFormat: "messages", source: "anthropic" });
    const elsewhere = resolveProvider({ endpoint: { provider: "anthropic", baseUrl: "http://127.0.0.1:9999" }, config: keys, variables });
    expect(elsewhere).toMatchObject({ apiKey: null, keyWithheld: "ANTHROPIC_API_KEY" });
    const viaEnv = config({ ANTHROPIC_API_KEY: "sk-ant-org", ANTHROPIC_BASE_URL: "https://gateway.corp.example/anthropic" });
    expect(resolveProvider({ endpoint: { provider: "anthropic" }, config: viaEnv, variables }).apiKey).toBe("sk-ant-org");
    // OPENAI_API_KEY never goes to Anthropic, nor ANTHROPIC_API_KEY to OpenAI.
    expect(resolveProvider({ endpoint: { provider: "anthropic" }, config: config({ OPENAI_API_KEY: "sk-org" }), variables: {} })).toMatchObject({
      apiKey: null,
      missingKeyEnv: "ANTHROPIC_API_KEY",
    });
    expect(resolveProvider({ endpoint: { provider: "openai" }, config: config({ ANTHROPIC_API_KEY: "sk-ant-org" }), variables: {} }).apiKey).toBeNull();
  });

  it("strips a trailing /v1 from an Anthropic base URL (its SDK adds /v1/messages)", () => {
    expect(
      resolveProvider({ endpoint: { provider: "anthropic", baseUrl: "http://127.0.0.1:9999/v1/", apiKeyEnv: "TEAM_KEY" }, config: keys, variables }).baseUrl,
    ).toBe("http://127.0.0.1:9999");
  });

  it("sends the offline scripted profiles to the local server with no key, in their wire format", () => {
    expect(resolveProvider({ endpoint: { provider: "scripted-anthropic" }, config: keys, variables })).toMatchObject({
      baseUrl: "http://127.0.0.1:8787",
      apiKey: null,
      wireFormat: "messages",
    });
    expect(resolveProvider({ endpoint: { provider: "scripted-responses" }, config: keys, variables })).toMatchObject({
      baseUrl: "http://127.0.0.1:8787/v1",
      apiKey: null,
      wireFormat: "responses",
    });
  });
});
