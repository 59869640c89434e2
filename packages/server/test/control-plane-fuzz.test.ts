/**
 * Property-based fuzzing of the control plane (`/admin/*`, docs/control-plane.md), as fuzz.test.ts
 * does for the account endpoints: bodies from the endpoints' own Schemas, broken in one way
 * (support/mutations.ts), sent with the admin key. Whatever comes in: never a 5xx, a status the
 * contract or the endpoint declares, every 4xx body in the contract's shape, every 200 decoding
 * with the endpoint's success Schema, and a rejected update leaves the controls as they were.
 * `POST /admin/reset` is left out (a valid one empties every account: control-plane.test.ts).
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { responseProblems } from "./support/contract.js"
import { adminEndpoints } from "./support/endpoints.js"
import { bodyArbitrary } from "./support/mutations.js"
import { serverWith } from "./support/progression.js"
import { serverWire } from "../src/testing.js"

const adminKey = "admin-key-of-the-fuzz"
const runs = Number(process.env.FUZZ_RUNS ?? 20)
const seed = Number(process.env.FUZZ_SEED ?? 424242)

layer(serverWith({ PLATFORM_ADMIN_KEY: adminKey }), { timeout: Math.max(60_000, runs * 2_000) })("control plane fuzz", (it) => {
  it.effect("every control-plane endpoint but reset, with broken bodies: the contract's answers, nothing changed by a rejection", () =>
    Effect.gen(function*() {
      const wire = yield* serverWire
      const fuzzed = adminEndpoints.filter((endpoint) => endpoint.name !== "reset")
      assert.isAtLeast(fuzzed.length, 5)
      const controls = () => wire.send({ method: "GET", target: "/admin/controls", headers: { "x-admin-key": adminKey } }).then((r) => r.text)
      for (const endpoint of fuzzed) {
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(bodyArbitrary(endpoint, { values: {} }, 1024 * 1024), async (body) => {
              const before = await controls()
              const response = await wire.send({
                method: endpoint.method,
                target: endpoint.path,
                headers: {
                  "x-admin-key": adminKey,
                  ...(body.contentType !== undefined ? { "content-type": body.contentType } : {})
                },
                ...(body.body !== undefined ? { body: body.body } : {}),
                ...(body.chunked ? { chunked: true } : {})
              })
              const problems = responseProblems(endpoint, response)
              assert.deepStrictEqual(problems, [], `${endpoint.key} ${body.notes.join(", ")}: ${response.status} ${response.text.slice(0, 300)}`)
              if (response.status >= 400) assert.strictEqual(await controls(), before, `${endpoint.key}: a rejected request changed the controls`)
            }),
            { numRuns: runs, seed }
          )
        )
      }
      // the fuzz leaves the server as the suite's others expect it
      yield* Effect.promise(() =>
        wire.send({
          method: "PATCH",
          target: "/admin/controls",
          headers: { "x-admin-key": adminKey, "content-type": "application/json" },
          body: JSON.stringify({ progression: "timed", lifecycle_faults: [], route_faults: [] })
        })
      )
    }))
})
