/**
 * The process suites' global setup (vitest.reliability.config.ts, the `processes-pg` project of
 * vitest.config.ts): the standalone server bundled into `dist/server/` as `npm start` does (skipped
 * when the bundle is newer than every file it was built from), once before the suites start the
 * server as child processes. Starting the bundle takes about a third of the time of starting the
 * TypeScript sources through tsx.
 */
import { buildServer, upToDate } from "../../../../scripts/build.mjs"

export default async function setup(): Promise<void> {
  if (!upToDate()) await buildServer(undefined, { quiet: true })
}
