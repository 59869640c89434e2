import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

/**
 * Tests run the TypeScript sources of the workspace's packages: `@platform-kit/*` resolve through
 * the `@platform-kit/source` condition of their `exports` (`./src/index.ts`) rather than through the
 * built `./dist` that an installed package uses (docs/packages.md).
 */
export const sourceConditions = {
  resolve: { conditions: ["@platform-kit/source", ...defaultServerConditions] },
  ssr: { resolve: { conditions: ["@platform-kit/source", ...defaultServerConditions] } }
}

// Tests build their own databases; nothing they start may write under ./data. By default each
// test layer gets a fresh SQLite file of its own and the API is served by the lean server
// (packages/server/src/fast/server.ts), as `npm start` serves it; `vitest run --mode builder`
// (`npm run test:builder`) serves it with HttpApiBuilder.serve on in-memory SQLite, as an
// embedding application does. `vitest run --mode pg` (`npm run test:pg`,
// under scripts/with-postgres.sh) runs the same suites through HttpApiBuilder.serve on the
// PostgreSQL server of DATABASE_URL:
// each test layer runs on a migrated schema of its own there, emptied for the next when done
// (packages/server/src/testDatabase.ts). That mode adds the `processes-pg` project: several
// server processes on one PostgreSQL database (docs/postgresql.md).
const databaseEnv = (mode: string): Record<string, string> => {
  // the default: the lean server on SQLite files, as the standalone server runs (fsync spared:
  // durability is the reliability suite's business, with its own settings)
  if (mode === "development" || mode === "test") {
    return { DATABASE_URL: "sqlite::memory:", PLATFORM_TEST_DATABASE: "file", PLATFORM_SQLITE_SYNCHRONOUS: "NORMAL" }
  }
  // `--mode builder`: HttpApiBuilder.serve on in-memory SQLite, as an embedding application runs
  if (mode === "builder") return { DATABASE_URL: "sqlite::memory:", PLATFORM_TEST_ENGINE: "builder" }
  // `--mode s3` (`npm run test:s3`): the default, with each suite's object-store folder served
  // through the S3 backend by an S3 server over that folder (packages/server/test/support/s3.ts)
  if (mode === "s3") {
    return { DATABASE_URL: "sqlite::memory:", PLATFORM_TEST_DATABASE: "file", PLATFORM_SQLITE_SYNCHRONOUS: "NORMAL", PLATFORM_TEST_OBJECT_STORE: "s3" }
  }
  if (mode !== "pg") throw new Error(`unknown vitest mode ${mode}: none, builder, pg or s3`)
  const url = process.env.DATABASE_URL ?? ""
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new Error("vitest --mode pg needs DATABASE_URL=postgres://…; run it as `npm run test:pg`")
  }
  // PostgreSQL has no key file next to it: credential secrets need an explicit key (a test one).
  // Served through HttpApiBuilder.serve, as an embedding application on PostgreSQL runs it: with
  // `npm test` (the lean server on SQLite files) the two passes cover both servers and both
  // databases; lean-server-conformance.test.ts compares both servers on PostgreSQL here, and the
  // processes-pg project runs real standalone servers (the lean server) on it.
  return { DATABASE_URL: url, PLATFORM_SECRET_KEY: "00".repeat(32), PLATFORM_TEST_ENGINE: "builder" }
}

/** Before each test file: @effect/vitest's `it` as the package made it (vitest.setup.ts). */
const setupFiles = [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))]

export default defineConfig(({ mode }) => {
  // lifecycles complete their simulated steps at once (docs/engine.md, progression); a test of
  // `timed` progression sets it on its own layer
  // the fuzz's cases per endpoint (fuzz.test.ts): 20 by default; the builder and PostgreSQL
  // modes, which rerun the whole suite, run 10 each (CI's 40 minutes; `npm run test:fuzz` runs 1,000)
  const fuzzRuns = process.env.FUZZ_RUNS ?? (mode === "builder" || mode === "pg" ? "10" : "20")
  // the kit's own threads (an upload's embeddings) at the process's priority: the suite keeps both
  // cores busy, where a nice-19 thread waits for seconds (the nice value is the reliability suite's)
  const env = { ...databaseEnv(mode), PLATFORM_PROGRESSION: "immediate", FUZZ_RUNS: fuzzRuns, PLATFORM_HELPER_THREADS_NICE: "0", PLATFORM_TEST_ASYNC_SITES: "1" }
  // The suites whose outcome is the same in every pass run in `npm test` only: they serve through
  // neither server on the pass's database (the Schemas and the HttpApi alone; the fast path's
  // pieces and the SQLite key file, each on SQLite files of its own; programs embedding the kit on
  // in-memory SQLite; the example server, a child process on a SQLite file).
  const samePerPass = mode === "builder" || mode === "pg"
    ? ["packages/schema/test/**", "packages/api/test/**", "examples/test/examples.test.ts", "packages/server/test/*-embedded.test.ts"].concat(
      ["group-commit", "reads", "wal-checkpoints", "reliability-sqlite", "credentials-secret-box", "platform-object-store-s3"].map((name) =>
        `packages/server/test/${name}.test.ts`
      )
    )
    : []
  // `--mode s3`: the suites whose server keeps bytes in an object-store folder of theirs, on the S3
  // backend (the server project only; the S3 backend's own suites run in every pass anyway)
  const s3Suites = ["files", "applications-files", "training-datasets", "knowledge-bases-ingestion", "knowledge-bases-retrieval", "builds"]
    .map((name) => `packages/server/test/${name}.test.ts`)
  const project = (name: string, dir: string) => ({
    ...sourceConditions,
    test: {
      name,
      include: mode === "s3" ? s3Suites : [`${dir}/test/**/*.test.ts`],
      exclude: samePerPass,
      testTimeout: 30_000,
      hookTimeout: 30_000,
      setupFiles,
      env
    }
  })
  // `--mode pg` only: real server processes sharing the PostgreSQL database (several instances
  // at once: packages/server/test/processes/*.pg.ts). Each start costs seconds; one file at a time.
  const processes = mode === "pg"
    ? [{
      ...sourceConditions,
      test: {
        name: "processes-pg",
        include: ["packages/server/test/processes/**/*.pg.ts"],
        testTimeout: 300_000,
        hookTimeout: 120_000,
        fileParallelism: false,
        globalSetup: ["packages/server/test/processes/buildServer.ts"],
        setupFiles,
        env
      }
    }]
    : []
  // vitest's default is as many test files at once as there are cores but one: one at a time on
  // CI's 2 cores. Here it is at least two: most files wait on servers, timers and the disk more
  // than they compute, and two at a time there took the default suite from 557 s to 315 s.
  const maxWorkers = Math.max(2, availableParallelism() - 1)
  return {
    test: {
      maxWorkers,
      // test files share their worker's modules (not isolated): importing the server afresh for
      // each file cost `npm test` about two and a half minutes of its seven (`collect` 193 s of
      // 466 s; 38 s shared). Each file builds its own servers and databases (a layer of its own),
      // and what a file leaves behind is closed with its layers: no fiber, timer or pool outlives
      // its layer's scope (the engine's included: engine/Lifecycles.ts). What is per process is
      // per process on purpose (the engine's scheduler, the time of the last request: a test of
      // the scheduler on a clock of its own gives it requests of its own). @effect/vitest's `it`
      // is put back before each file (vitest.setup.ts). The reliability suites, which start
      // processes, run apart (vitest.reliability.config.ts).
      isolate: false,
      projects: mode === "s3" ? [project("server", "packages/server")] : [
        project("schema", "packages/schema"),
        project("api", "packages/api"),
        project("server", "packages/server"),
        project("client", "packages/client"),
        project("examples", "examples"),
        ...processes
      ]
    }
  }
})
