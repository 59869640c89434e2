import { defineConfig } from "vitest/config"
import { sourceConditions } from "./vitest.config.js"

// `npm run test:reliability` (docs/reliability.md): the suites that run the real programs as child
// processes (the server through tsx, the `platform-kit` admin CLI) on SQLite files: shutdown on
// SIGTERM, kill -9 mid-load and restart, two servers on one file, the CLI. Each start costs
// seconds, so they are not part of `npm test`; one file at a time, so their timing stays sane on 2 cores.
export default defineConfig({
  ...sourceConditions,
  test: {
    name: "reliability",
    include: ["packages/server/test/processes/**/*.reliability.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    env: { DATABASE_URL: "sqlite::memory:" }
  }
})
