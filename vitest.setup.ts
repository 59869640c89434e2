/**
 * Runs before each test file (vitest.config.ts, `setupFiles`): @effect/vitest's `it` gets back the
 * testers the package made, before the file defines its tests.
 *
 * Test files share their worker's modules (`isolate: false`), @effect/vitest's among them, and
 * `layer(…)` of @effect/vitest 0.30 (the last release for effect 3) assigns the testers it makes
 * for the layer (`effect`, `scoped`, `layer`, `prop`, `flakyTest`: each runs its test in the
 * layer's runtime) onto the very `it` object the package exports. Once a file had called
 * `layer(TestServerLive)`, every later file of the worker that imports `it` ran its `it.effect`s
 * and `it.scoped`s in that runtime, closed by then: its services were still in their context.
 * That is how a program embedding the kit on in-memory SQLite (knowledge-bases-embedded.test.ts)
 * found the closed test server's `BackgroundSql`, whose PostgreSQL pool had ended, and its engine
 * tried to start there until the test timed out.
 */
import { it } from "@effect/vitest"

const testers = ["effect", "scoped", "live", "scopedLive", "flakyTest", "layer", "prop"] as const

/** The testers as the package made them: kept at the worker's first file, before any `layer(…)` ran. */
const key = Symbol.for("platform-kit/vitest.setup/effect-vitest-testers")
const global = globalThis as { [key]?: Partial<typeof it> }
const made = global[key] ??= Object.fromEntries(testers.map((name) => [name, it[name]]))

Object.assign(it, made)
