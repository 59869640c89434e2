import { defineConfig } from "vitest/config"
import { sourceConditions } from "./vitest.config.js"

// `npm run test:reliability` (docs/reliability.md): the suites that run the real programs as child
// processes (the server bundled as `npm start` runs it, the `platform-kit` admin CLI) on SQLite files: shutdown on
// SIGTERM, kill -9 mid-load and restart, two servers on one file, the CLI. Each start costs
// seconds, so they are not part of `npm test`. Two files at a time: most of their time is spent
// waiting on the processes they started (the whole run took 180 s one at a time, 99 s two at a time).
export default defineConfig({
  ...sourceConditions,
  test: {
    name: "reliability",
    include: ["packages/server/test/processes/**/*.reliability.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    globalSetup: ["packages/server/test/processes/buildServer.ts"],
    env: { DATABASE_URL: "sqlite::memory:" }
  }
})
