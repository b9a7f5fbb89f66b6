import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../server/db/embedded-postgres.ts";
import { applyMigrations } from "../../server/db/migrations.ts";
import { freePort } from "./ports.ts";

/** The migrated database every worker database is copied from, shared by the projects of one vitest run. */
interface TemplateServer {
  /** URL of the migrated template database (never handed to a test). */
  url: string;
  /** Projects whose teardown has not run yet; the last one stops the server. */
  users: number;
  stop: () => Promise<void>;
}

const shared = globalThis as unknown as { longhaulTestTemplate?: Promise<TemplateServer> };

/**
 * TEST_DATABASE_URL when set (it must name a local database whose name contains "test" — the guard
 * refuses anything else), otherwise an ephemeral embedded PostgreSQL on a free port, deleted
 * afterwards; migrations applied. Started once per vitest run, whichever project asks first.
 */
async function startTemplate(): Promise<TemplateServer> {
  let url = process.env.TEST_DATABASE_URL;
  let stop = async () => {};
  if (url) {
    const parsed = new URL(url);
    if (!["127.0.0.1", "localhost", "::1"].includes(parsed.hostname) || !parsed.pathname.includes("test")) {
      throw new Error(`TEST_DATABASE_URL must point at a local database whose name contains "test"; got ${parsed.host}${parsed.pathname}`);
    }
  } else {
    const dir = mkdtempSync(join(tmpdir(), "longhaul-test-pg-"));
    const server = await startEmbeddedPostgres({ dir, port: await freePort(), database: "longhaul_test", ephemeral: true });
    url = server.url;
    stop = server.stop;
  }
  await applyMigrations(url);
  return { url, users: 0, stop };
}

/**
 * Creates (or re-creates) `count` databases named `<template>_<project>_<n>` (n = 1…count) as copies
 * of the template (`CREATE DATABASE … TEMPLATE`, PostgreSQL's documented way to clone a database:
 * https://www.postgresql.org/docs/current/manage-ag-templatedbs.html) and returns their URLs, in n
 * order. PostgreSQL refuses to copy a database others are connected to, so connections left to the
 * template (the migration engine's idle pool) are ended first.
 */
async function createWorkerDatabases(templateUrl: string, project: string, count: number): Promise<string[]> {
  const template = new URL(templateUrl);
  const templateName = decodeURIComponent(template.pathname.slice(1));
  const admin = new URL(templateUrl);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [templateName]);
    const urls: string[] = [];
    for (let n = 1; n <= count; n++) {
      const name = `${templateName}_${project.replace(/[^a-z0-9]/gi, "_").toLowerCase()}_${n}`;
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
      const url = new URL(templateUrl);
      url.pathname = `/${name}`;
      urls.push(url.toString());
    }
    return urls;
  } finally {
    await client.end();
  }
}

/** The number of workers vitest runs `project`'s files on (its `maxWorkers`, else vitest's own default: one less than the cores). */
function workerCount(project: TestProject): number {
  const configured = project.config.maxWorkers ?? project.vitest.config.maxWorkers;
  return typeof configured === "number" && configured > 0 ? configured : Math.max(availableParallelism() - 1, 1);
}

/**
 * Vitest global setup of the integration projects: a real PostgreSQL, and one database per worker.
 * A migrated template database is made once per run (see {@link startTemplate}); each project then
 * gets its own copies of it, one per worker it may run (`VITEST_POOL_ID` 1…maxWorkers), handed to
 * tests as `inject("databaseUrls")`. A file reads its own with `testDatabaseUrl()`
 * (tests/support/database.ts), which the setup file tests/support/worker-database.ts also puts in
 * process.env.DATABASE_URL. Files that run at the same time therefore never share a database; files
 * run one after another on the same worker do, as every file did when all ran on one database.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.longhaulTestTemplate ??= startTemplate();
  const template = await shared.longhaulTestTemplate;
  template.users++;
  const stop = async () => {
    if (--template.users > 0) return;
    shared.longhaulTestTemplate = undefined;
    await template.stop();
  };
  try {
    project.provide("databaseUrls", await createWorkerDatabases(template.url, project.name, workerCount(project)));
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** One database URL per worker of the project, index = `VITEST_POOL_ID` − 1. */
    databaseUrls: string[];
  }
}
