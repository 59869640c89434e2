/**
 * The process suites' global setup (vitest.reliability.config.ts, the `processes-pg` project of
 * vitest.config.ts): the standalone server bundled into `dist/server/` as `npm start` does, and the
 * admin CLI into its bundle as its first call would (each skipped when it is newer than every file
 * it was built from), once before the suites start them as child processes. Starting the bundle
 * takes about a third of the time of starting the TypeScript sources through tsx.
 */
import { buildCli, buildServer, cliDir, upToDate } from "../../../../scripts/build.mjs"

export default async function setup(): Promise<void> {
  if (!upToDate()) await buildServer(undefined, { quiet: true })
  if (!upToDate(cliDir, "platform-kit.mjs")) await buildCli()
}
