/**
 * The isolation matrix: two accounts with their own keys and one of every resource each
 * (support/world.ts), checked on every endpoint of the API (enumerated from `PlatformApi`):
 *
 * - the other account's ids in a path answer 404 (never 403, never the entity), its account in a
 *   path 403, and such a request writes nothing;
 * - reads, lists and filters never show the other account's rows (its marker, its ids), even under
 *   namespaces both accounts use (application spec, model instance, task, trace);
 * - `account_id` (query or body) and `x-selected-account-id` naming the other account answer 403;
 * - `created_by_user_id` / `created_by_identity_type` / `created_by` in a body are ignored: the
 *   key's identity is recorded.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { formRequest, type FormValue, jsonRequest, queryString, serverWire, TestServerLive, type Wire, type WireResponse } from "../src/testing.js"
import { type Endpoint, endpoints, pathWith, queryKeys, schemaKeys } from "./support/endpoints.js"
import { makeFingerprint, stillFingerprint, writesWhenRejected } from "./support/fingerprint.js"
import { makeShared, needsOf, newAccountWorld, onlyAdds, pathParameters, queryValues, sampleBody, type World } from "./support/world.js"

const shared = makeShared()

const newWorld = (wire: Wire, needs?: ReadonlySet<string>) => newAccountWorld(wire, shared, needs)

let bobWorld: World | undefined
let aliceUntouched: World | undefined
let aliceAdded: World | undefined
/** Whether work started in the background may still write: a world was made, or the last test wrote as Alice. */
let backgroundMayRun = true
/**
 * Bob (one for all tests) and Alice. For a test whose request writes as Alice, `writes`: one for
 * all tests whose endpoint is one of the world's creates (it adds a resource and changes none of
 * hers: support/world.ts, `onlyAdds`), else fresh, with only what the endpoint's requests need
 * (`needsOf`; a delete or an update that succeeds would spoil the next test). Else one for all
 * tests, as made: those tests only read, or send requests they check wrote nothing (the
 * fingerprint before and after each), so none of them changes her world.
 */
const setupFor = (alice: "writes" | "untouched", endpoint?: Endpoint) =>
  Effect.gen(function*() {
    const wire = yield* serverWire
    if (bobWorld === undefined || (alice === "untouched" && aliceUntouched === undefined) || alice === "writes") {
      backgroundMayRun = true
    }
    const bob = bobWorld ??= yield* newWorld(wire)
    const aliceWorld = alice === "untouched"
      ? (aliceUntouched ??= yield* newWorld(wire))
      : endpoint !== undefined && onlyAdds(endpoint, bob)
      ? (aliceAdded ??= yield* newWorld(wire))
      : yield* newWorld(wire, endpoint === undefined ? undefined : needsOf(endpoint))
    const fingerprint = yield* makeFingerprint
    // what an earlier test or a world started in the background (a deployment created by its own
    // call moves from PENDING to READY) ends before this test compares the tables: the fingerprint,
    // read 50 ms apart, stays the same (or 5 s have passed); nothing to wait for after a test that
    // only read or was refused (nothing it sent wrote, so nothing it sent started)
    if (backgroundMayRun) yield* stillFingerprint(fingerprint)
    // a test that writes as Alice may start work that goes on after it
    backgroundMayRun = alice === "writes"
    return { wire, alice: aliceWorld, bob, fingerprint }
  })

/**
 * That a rejected request wrote nothing: the fingerprint after it is `before`; if it is not, work
 * an earlier write started in the background (a widget's computation, a lifecycle's step) may have
 * written meanwhile, so the same request, sent again once the database is still, must leave it as
 * it is then.
 */
const wroteNothing = (fingerprint: Effect.Effect<string>, before: string, again: Effect.Effect<WireResponse>, message: string) =>
  Effect.gen(function*() {
    if ((yield* fingerprint) === before) return
    assert.isFalse(yield* writesWhenRejected(fingerprint, again), message)
  })

/** Bob's marker, ids or secrets in `response`, once what the request itself carried is taken out. */
const leaks = (response: WireResponse, bob: World, sent: ReadonlyArray<string>): Array<string> => {
  let text = response.text
  for (const value of sent) if (value.length > 0) text = text.split(value).join("")
  return [bob.marker, ...bob.ids, ...bob.secrets].filter((needle) => text.includes(needle))
}

/** The query of `endpoint` with every parameter that has a value in `world` set to it (none of `omit`). */
const filtersOf = (endpoint: Endpoint, world: World, omit: ReadonlyArray<string> = []): Record<string, string> => {
  const values = queryValues(world, endpoint.key)
  return Object.fromEntries(
    queryKeys(endpoint).flatMap((key) => (values[key] !== undefined && !omit.includes(key) ? [[key, values[key]!]] : []))
  )
}

const bodyFor = (endpoint: Endpoint, world: World) => {
  if (!endpoint.hasBody || Option.isNone(endpoint.payload)) return undefined
  const body = sampleBody(endpoint, world)
  if (body === undefined) throw new Error(`no sample body for ${endpoint.key}: add one to test/support/world.ts`)
  return body
}

/** The request: JSON, or for a form endpoint (`upload_files`) the body's fields as a form. */
const send = (wire: Wire, endpoint: Endpoint, target: string, key: string, body?: unknown, headers?: Record<string, string>) =>
  Effect.promise(() =>
    wire.send(
      endpoint.form
        ? formRequest(endpoint.method, target, key, formFields(body as Record<string, unknown>), headers)
        : jsonRequest(endpoint.method, target, key, body, headers)
    )
  )

/** A sample body as form fields: its strings and files as they are, anything else as JSON text. */
const formFields = (body: Record<string, unknown>): Record<string, FormValue> =>
  Object.fromEntries(
    Object.entries(body).map(([name, value]) => [name, typeof value === "string" || Array.isArray(value) ? value as FormValue : JSON.stringify(value)])
  )

const describeCall = (endpoint: Endpoint, target: string, response: WireResponse) =>
  `${endpoint.method} ${target} → ${response.status} ${response.text.slice(0, 300)}`

const owned = (endpoint: Endpoint) =>
  endpoint.pathParams.filter((p) => pathParameters[p] === "entity" || pathParameters[p] === "account")

layer(TestServerLive, { timeout: 120_000 })("isolation: two accounts", (it) => {
  for (const endpoint of endpoints.filter((e) => e.authenticated && owned(e).length > 0)) {
    it.effect(`${endpoint.method} ${endpoint.path}: the other account's ids answer 404 (its account 403) and write nothing`, () =>
      Effect.gen(function*() {
        // Alice's own request at the end succeeds: it writes, unless it reads
        const { alice, bob, fingerprint, wire } = yield* setupFor(endpoint.method === "GET" ? "untouched" : "writes", endpoint)
        const params = owned(endpoint)
        const swaps = params.length > 1 ? [...params.map((p) => [p]), params] : [params]
        for (const swap of swaps) {
          const values = { ...alice.values, ...Object.fromEntries(swap.map((p) => [p, bob.values[p]!])) }
          const target = pathWith(endpoint.path, values) + queryString(filtersOf(endpoint, alice, ["account_id"]))
          const body = bodyFor(endpoint, alice)
          const before = yield* fingerprint
          const request = send(wire, endpoint, target, alice.key, body)
          const response = yield* request
          const expected = swap.some((p) => pathParameters[p] === "account") ? 403 : 404
          assert.strictEqual(response.status, expected, `swapped ${swap.join(", ")}: ${describeCall(endpoint, target, response)}`)
          assert.isString(response.json?.detail)
          assert.deepStrictEqual(leaks(response, bob, swap.map((p) => bob.values[p]!)), [], describeCall(endpoint, target, response))
          yield* wroteNothing(fingerprint, before, request, `a rejected request wrote: ${describeCall(endpoint, target, response)}`)
        }
        // the same request with Alice's own ids succeeds: the 404s above are about ownership
        const target = pathWith(endpoint.path, alice.values) + queryString(filtersOf(endpoint, alice, ["account_id"]))
        const own = yield* send(wire, endpoint, target, alice.key, bodyFor(endpoint, alice))
        assert.strictEqual(own.status, endpoint.successStatus, describeCall(endpoint, target, own))
      }))
  }

  for (const endpoint of endpoints.filter((e) => e.authenticated && e.method === "GET")) {
    it.effect(`GET ${endpoint.path}: never shows the other account's rows, whatever the filters`, () =>
      Effect.gen(function*() {
        const { alice, bob, wire } = yield* setupFor("untouched")
        const path = pathWith(endpoint.path, alice.values)
        for (const query of [{}, filtersOf(endpoint, alice), filtersOf(endpoint, bob, ["account_id"])]) {
          const target = path + queryString(query)
          const response = yield* send(wire, endpoint, target, alice.key)
          assert.isBelow(response.status, 500, describeCall(endpoint, target, response))
          assert.deepStrictEqual(leaks(response, bob, Object.values(query)), [], describeCall(endpoint, target, response))
        }
        const target = path + queryString(filtersOf(endpoint, alice))
        const own = yield* send(wire, endpoint, target, alice.key)
        assert.strictEqual(own.status, 200, describeCall(endpoint, target, own))
      }))
  }

  it.effect("metrics under an application spec both accounts record to count only the caller's interactions", () =>
    Effect.gen(function*() {
      const { alice, bob, wire } = yield* setupFor("untouched")
      for (const world of [alice, bob]) {
        const response = yield* Effect.promise(() =>
          wire.send(jsonRequest("GET", `/v4/applications/${shared.application_spec_id}/metrics/scalar/total_requests`, world.key))
        )
        assert.strictEqual(response.status, 200, response.text)
        assert.strictEqual(response.json.value, 1, response.text)
      }
    }))

  for (const endpoint of endpoints.filter((e) => e.authenticated && queryKeys(e).includes("account_id"))) {
    it.effect(`${endpoint.method} ${endpoint.path}: account_id of the other account in the query answers 403`, () =>
      Effect.gen(function*() {
        const { alice, bob, fingerprint, wire } = yield* setupFor("untouched")
        const target = pathWith(endpoint.path, alice.values) + queryString({ ...filtersOf(endpoint, alice), account_id: bob.accountId })
        const before = yield* fingerprint
        const request = send(wire, endpoint, target, alice.key, bodyFor(endpoint, alice))
        const response = yield* request
        assert.strictEqual(response.status, 403, describeCall(endpoint, target, response))
        yield* wroteNothing(fingerprint, before, request, describeCall(endpoint, target, response))
      }))
  }

  for (const endpoint of endpoints.filter((e) => e.authenticated && e.hasBody && schemaKeys(e.payload).includes("account_id"))) {
    it.effect(`${endpoint.method} ${endpoint.path}: account_id of the other account in the body answers 403`, () =>
      Effect.gen(function*() {
        const { alice, bob, fingerprint, wire } = yield* setupFor("untouched")
        const target = pathWith(endpoint.path, alice.values) + queryString(filtersOf(endpoint, alice, ["account_id"]))
        const before = yield* fingerprint
        const request = send(wire, endpoint, target, alice.key, { ...bodyFor(endpoint, alice), account_id: bob.accountId })
        const response = yield* request
        assert.strictEqual(response.status, 403, describeCall(endpoint, target, response))
        yield* wroteNothing(fingerprint, before, request, describeCall(endpoint, target, response))
      }))
  }

  for (const endpoint of endpoints.filter((e) => e.authenticated)) {
    it.effect(`${endpoint.method} ${endpoint.path}: x-selected-account-id of the other account answers 403`, () =>
      Effect.gen(function*() {
        const { alice, bob, fingerprint, wire } = yield* setupFor("untouched")
        const target = pathWith(endpoint.path, alice.values) + queryString(filtersOf(endpoint, alice, ["account_id"]))
        const before = yield* fingerprint
        // the sample bodies name their account only where the field is required (then Alice's own)
        const request = send(wire, endpoint, target, alice.key, bodyFor(endpoint, alice), {
          "x-selected-account-id": bob.accountId
        })
        const response = yield* request
        assert.strictEqual(response.status, 403, describeCall(endpoint, target, response))
        yield* wroteNothing(fingerprint, before, request, describeCall(endpoint, target, response))
      }))
  }

  for (const endpoint of endpoints.filter((e) => e.authenticated && e.method === "POST" && Option.isSome(e.payload))) {
    it.effect(`${endpoint.method} ${endpoint.path}: created_by fields in the body are ignored`, () =>
      Effect.gen(function*() {
        const { alice, wire } = yield* setupFor("writes", endpoint)
        const target = pathWith(endpoint.path, alice.values)
        const forgery = {
          created_by_user_id: "forged-user",
          created_by_identity_type: "service_account",
          created_by: { id: "forged-user", type: "service_account", object: "identity" }
        }
        // a body that is a bare array (a batch) has the fields forged on each of its items
        const body: unknown = bodyFor(endpoint, alice)
        const forged = Array.isArray(body) ? body.map((item) => ({ ...item, ...forgery })) : { ...(body as object), ...forgery }
        const response = yield* send(wire, endpoint, target, alice.key, forged)
        // (a POST may answer 204: the checkpoint store's put-writes and delete-thread)
        assert.strictEqual(response.status, endpoint.successStatus, describeCall(endpoint, target, response))
        assert.notInclude(response.text, "forged-user")
        const json = response.json ?? {}
        if ("created_by_user_id" in json) {
          assert.strictEqual(json.created_by_user_id, alice.identityId)
          // a resource with no created_by_identity_type (a training dataset) says only who
          if ("created_by_identity_type" in json) assert.strictEqual(json.created_by_identity_type, "user")
        }
        if (typeof json.created_by === "object" && json.created_by !== null) assert.strictEqual(json.created_by.id, alice.identityId)
        if (typeof json.created_by === "string") assert.strictEqual(json.created_by, alice.identityId)
      }))
  }
})
