/**
 * Property-based fuzzing of every endpoint of the API (enumerated from `PlatformApi`, so a new
 * endpoint is fuzzed without touching this file). Requests start from values of the endpoint's own
 * Schemas (`Arbitrary.make`) pointed at real entities of the fuzz account, then are broken in one
 * way (support/mutations.ts). Whatever comes in:
 *
 * - the answer is never a 5xx, and its status is one the contract or the endpoint declares;
 * - every 4xx body has the contract's shape (422: `detail` items `{loc, msg, type, input?, ctx?}`
 *   with `loc[0]` in body|query|path|header; 401/403/404/409/413: `{detail: string}`), and every 200
 *   decodes with the endpoint's success schema;
 * - a body the endpoint's payload Schema rejects is a 422 whose items name the broken field;
 * - a rejected request (any 4xx) leaves the database as it was.
 *
 * `npm test` runs FUZZ_RUNS (default 20; 10 in the builder and PostgreSQL modes: vitest.config.ts) cases per endpoint with a fixed seed; `npm run test:fuzz`
 * runs 1,000 per endpoint. FUZZ_SEED picks another seed.
 */
import { afterAll, assert, layer } from "@effect/vitest"
import { Effect, Either, Option, ParseResult, Runtime, Schema } from "effect"
import * as fc from "fast-check"
import { eventually, jsonRequest, serverWire, TestServerLive, type Wire, type WireResponse } from "../src/testing.js"
import { type Endpoint, endpoints, fillPath } from "./support/endpoints.js"
import { makeFingerprint, writesWhenRejected } from "./support/fingerprint.js"
import { caseArbitrary, type FuzzCase } from "./support/mutations.js"
import { foreignErrors, responseProblems } from "./support/contract.js"
import { needsOf, newAccountWorld, worldHas } from "./support/world.js"

const runs = Number(process.env.FUZZ_RUNS ?? 20)
const seed = Number(process.env.FUZZ_SEED ?? 424242)
const maxBodyBytes = Number(process.env.PLATFORM_MAX_BODY_BYTES ?? 1024 * 1024)
/** Generous: a case is one local request and two counts; a slow machine must not fail the run. */
const timeout = Math.max(60_000, runs * 1_000)

interface Violation {
  readonly endpoint: string
  readonly problem: string
  readonly request: string
  readonly notes: ReadonlyArray<string>
  readonly response: string
}

const totals = { cases: 0, endpoints: 0, fiveHundreds: 0, rejectedWrites: 0, violations: 0, statuses: {} as Record<number, number> }

const parseOptions = { errors: "all", onExcessProperty: "ignore" } as const

/** The paths the endpoint's payload Schema finds wrong in `json`; none when it decodes. */
const payloadIssuePaths = (endpoint: Endpoint, json: unknown): ReadonlyArray<ReadonlyArray<PropertyKey>> | undefined => {
  if (Option.isNone(endpoint.payload)) return undefined
  const result = Schema.decodeUnknownEither(endpoint.payload.value as Schema.Schema<unknown, unknown, never>)(json, parseOptions)
  if (Either.isRight(result)) return undefined
  return ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => issue.path)
}

const related = (loc: ReadonlyArray<unknown>, path: ReadonlyArray<PropertyKey>): boolean => {
  const n = Math.min(loc.length, path.length)
  for (let i = 0; i < n; i++) if (String(loc[i]) !== String(path[i])) return false
  return path.length === 0 || loc.length > 0
}

/** find-my-way's default `maxParamLength`: a longer segment matches no route. */
const maxParamLength = 100

const routable = (segment: string) => {
  try {
    decodeURIComponent(segment)
    return segment.length <= maxParamLength
  } catch {
    return false
  }
}

const hasNonFinite = (value: unknown): boolean =>
  typeof value === "number"
    ? !Number.isFinite(value)
    : typeof value === "object" && value !== null && Object.values(value).some(hasNonFinite)

/**
 * Waits until a lifecycle a request started has settled (the engine's writes must not land during
 * the next case): `path` read until `done` says so, or it is gone (for 3 s at most).
 */
const settle = (wire: Wire, key: string, path: string, done: (body: any) => boolean) =>
  eventually(
    Effect.map(Effect.promise(() => wire.send(jsonRequest("GET", path, key))), (response) =>
      response.status !== 200 || done(response.json) ? Option.some(response) : Option.none()),
    3_000
  )

/** The path of the upload schedule a successful answer left firing, if it did. */
const firingSchedule = (endpoint: Endpoint, body: any): string | undefined =>
  (endpoint.key === "knowledgeBases.createUploadSchedule" || endpoint.key === "knowledgeBases.updateUploadSchedule") &&
    typeof body?.id === "string" && body.interval > 0 && body.next_run_at !== null &&
    (body.status === "HEALTHY" || body.status === "UNHEALTHY")
    ? `/v4/knowledge-bases/${body.knowledge_base_id}/upload-schedules/${body.id}`
    : undefined

/** The lifecycles a successful answer started, as what to wait for. */
const startedLifecycles = (endpoint: Endpoint, accountId: string, body: any, target: string): Array<readonly [string, (body: any) => boolean]> => {
  const out: Array<readonly [string, (body: any) => boolean]> = []
  const computed = (dashboard: any) => (dashboard?.widget_results ?? []).every((result: any) => result.computation_status !== "pending")
  if (endpoint.key === "evaluations.create" && typeof body?.id === "string") {
    out.push([`/v5/evaluations/${body.id}`, (evaluation) => evaluation?.status !== "running"])
  }
  if (endpoint.key === "evaluationDashboards.create" && typeof body?.id === "string") {
    out.push([`/v5/evaluation-dashboards/${body.id}`, computed])
  }
  if (endpoint.key === "evaluationDashboards.addWidget" || endpoint.key === "evaluationDashboards.updateWidget") {
    // the widget's computation, read on its dashboard
    out.push([target.split("?")[0]!.replace(/\/widgets(\/[^/]*)?$/, ""), computed])
  }
  if (typeof body?.deployment_package_job_id === "string") {
    out.push([
      `/v4/deployment-packages/${accountId}/install_async/${body.deployment_package_job_id}`,
      (job) => job?.status === "SUCCEEDED" || job?.status === "FAILED"
    ])
  }
  if (
    (endpoint.key === "applications.createDeployment" || endpoint.key === "applications.updateDeployment") &&
    typeof body?.id === "string"
  ) {
    out.push([`/v4/application-deployments/${body.id}`, (deployment) => deployment?.status !== "PENDING"])
  }
  if (endpoint.key === "agentRuntime.create" && typeof body?.id === "string") {
    // its lifecycle's steps, and an expiry already past (or due within the run of the fuzz)
    out.push([
      `/v5/agent-runtime/deployments/${body.id}`,
      (deployment) =>
        deployment?.status !== "PENDING" && deployment?.status !== "DEPLOYING" &&
        !(deployment?.status === "READY" && deployment.expires_at !== null && Date.parse(deployment.expires_at) < Date.now() + 60_000)
    ])
  }
  if (endpoint.key === "models.createDeployment" && typeof body?.id === "string") {
    out.push([`/v4/model-deployments/${body.id}`, (deployment) => deployment?.status !== "PENDING"])
  }
  if ((endpoint.key === "modelsV5.create" || endpoint.key === "modelsV5.update") && typeof body?.id === "string") {
    out.push([`/v5/models/${body.id}`, (model) => model?.status !== "deploying"])
  }
  if (endpoint.key === "fineTuningJobs.create" && typeof body?.id === "string") {
    out.push([`/v4/fine-tuning-jobs/${body.id}`, (job) => job?.status !== "PENDING" && job?.status !== "RUNNING"])
  }
  return out
}

const describeRequest = (target: string, c: FuzzCase) =>
  `${c.method} ${target.slice(0, 300)} ${JSON.stringify(c.headers).slice(0, 200)} ${c.body === undefined ? "" : c.body.slice(0, 300)}${
    (c.body?.length ?? 0) > 300 ? `…(${c.body!.length} chars)` : ""
  }`

afterAll(() => {
  console.log(
    `fuzz: ${totals.cases} cases over ${totals.endpoints} endpoints (${runs} each, seed ${seed}); ` +
      `5xx: ${totals.fiveHundreds}; rejected requests that wrote: ${totals.rejectedWrites}; violations: ${totals.violations}; ` +
      `statuses: ${JSON.stringify(totals.statuses)}`
  )
})

/**
 * An account of its own with one of every resource (support/world.ts), or of what `needs` names,
 * its package install (if it has one) ended.
 */
const newWorld = (wire: Wire, needs?: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const world = yield* newAccountWorld(wire, undefined, needs)
    const job = world.values.deployment_package_job_id
    if (job !== undefined) {
      yield* settle(wire, world.key, `/v4/deployment-packages/${world.accountId}/install_async/${job}`, (job) =>
        job?.status === "SUCCEEDED" || job?.status === "FAILED")
    }
    return world
  })

type MadeWorld = Effect.Effect.Success<ReturnType<typeof newWorld>>

/**
 * The world of the GET endpoints, one for all of them: a GET changes nothing in it, whatever the
 * case. Every other endpoint's cases run on a world nothing has changed since it was made (a
 * delete or an update that succeeds would change what the next endpoint's cases find): a new one
 * of what the endpoint's requests need (`needsOf`), or `unchanged`, the world of an endpoint whose
 * cases left the whole database as it was (the fingerprint after its last case that of before its
 * first: every case refused, or one that writes nothing, as a validation or a completion) when it
 * has what this one needs.
 */
let readingWorld: MadeWorld | undefined
let unchanged: MadeWorld | undefined

layer(TestServerLive, { timeout: 60_000 })("fuzz: every endpoint", (it) => {
  // every endpoint whose body is JSON: the form of `upload_files` is read field by field by its
  // handler, and its bad forms are tested with it (knowledge-bases-ingestion.test.ts)
  for (const endpoint of endpoints.filter((e) => !e.form)) {
    it.effect(`${endpoint.method} ${endpoint.path}`, () =>
      Effect.gen(function*() {
        const wire = yield* serverWire
        const reads = endpoint.method === "GET"
        const needs = needsOf(endpoint)
        const made = reads
          ? (readingWorld ??= yield* newWorld(wire))
          : unchanged !== undefined && worldHas(unchanged, needs)
          ? unchanged
          : yield* newWorld(wire, needs)
        unchanged = undefined
        const world = made
        const fingerprint = yield* makeFingerprint
        const first = yield* fingerprint
        const runtime = yield* Effect.runtime<never>()
        const snapshot = () => Runtime.runPromise(runtime)(fingerprint)
        /** Whether `send` writes when it is sent again once the database is still, and is rejected. */
        const writesAgain = (send: () => Promise<WireResponse>) =>
          Runtime.runPromise(runtime)(writesWhenRejected(fingerprint, Effect.promise(send), "100 millis"))
        const violations: Array<Violation> = []

        const check = async (c: FuzzCase) => {
          const target = `${fillPath(endpoint.path, c.segments)}${c.query}`
          if (process.env.FUZZ_DEBUG) console.log(`case: ${c.notes.join("; ")} :: ${describeRequest(target, c).slice(0, 400)}`)
          const send = () =>
            wire.send({
              method: c.method,
              target,
              headers: c.headers,
              ...(c.body !== undefined ? { body: c.body } : {}),
              ...(c.chunked ? { chunked: true } : {})
            })
          const before = await snapshot()
          let response: WireResponse
          try {
            response = await send()
          } catch (error) {
            violations.push({ endpoint: endpoint.key, problem: `no answer: ${String(error)}`, request: describeRequest(target, c), notes: c.notes, response: "" })
            return true
          }
          totals.cases++
          totals.statuses[response.status] = (totals.statuses[response.status] ?? 0) + 1
          const problems = responseProblems(endpoint, response)
          if (response.status >= 500) totals.fiveHundreds++
          if (response.status >= 400 && response.status < 500) {
            // a change is checked again once the database is still: work an earlier case started
            // in the background (a lifecycle's step, a widget's computation) may have written
            // meanwhile; the same request, rejected again, must write nothing then either
            if (await snapshot() !== before && await writesAgain(send)) {
              totals.rejectedWrites++
              problems.push(`a rejected request (${response.status}) changed the database`)
            }
          }
          // a body the payload Schema rejects is a 422 naming the field
          // (a path segment that is not valid percent-encoding, or longer than the router takes,
          // matches no route: a plain 404; a number JSON cannot hold is refused before the schema)
          if (c.keyValid && c.json !== undefined && Object.values(c.segments).every(routable) && !hasNonFinite(c.json)) {
            const paths = payloadIssuePaths(endpoint, c.json)
            if (paths !== undefined && foreignErrors[endpoint.key]?.[400] !== undefined) {
              // another protocol's endpoint (OTLP/HTTP): a 400 of its own, which names no field
              if (response.status !== 400) problems.push(`body the schema rejects answered ${response.status}, not the protocol's 400`)
            } else if (paths !== undefined) {
              if (response.status !== 422) problems.push(`body the schema rejects answered ${response.status}`)
              else {
                const locs: Array<ReadonlyArray<unknown>> = (response.json?.detail ?? [])
                  .filter((item: any) => item?.loc?.[0] === "body")
                  .map((item: any) => item.loc.slice(1))
                if (!paths.some((path) => locs.some((loc) => related(loc, path)))) {
                  problems.push(`422 names none of the broken fields ${JSON.stringify(paths.slice(0, 3))}`)
                }
              }
            }
          }
          if (response.status === 200) {
            // an upload schedule that fires would write during the cases that follow: paused at once
            const schedule = firingSchedule(endpoint, response.json)
            if (schedule !== undefined) await wire.send(jsonRequest("PATCH", schedule, world.key, { status: "PAUSED" }))
            for (const [path, done] of startedLifecycles(endpoint, world.accountId, response.json, target)) {
              await Runtime.runPromise(runtime)(settle(wire, world.key, path, done))
            }
          }
          for (const problem of problems) {
            violations.push({
              endpoint: endpoint.key,
              problem,
              request: describeRequest(target, c),
              notes: c.notes,
              response: `${response.status} ${response.text.slice(0, 400)}`
            })
          }
          return true
        }

        const guarded = async (c: FuzzCase) => {
          try {
            return await check(c)
          } catch (error) {
            violations.push({ endpoint: endpoint.key, problem: `test failed: ${String(error).slice(0, 300)}`, request: "", notes: c.notes, response: "" })
            return true
          }
        }
        yield* Effect.promise(() =>
          fc.assert(fc.asyncProperty(caseArbitrary(endpoint, world, maxBodyBytes), guarded), { numRuns: runs, seed })
        )
        if (!reads && (yield* fingerprint) === first) unchanged = made
        totals.endpoints++
        totals.violations += violations.length
        if (violations.length > 0) {
          // one example of each kind of problem
          const seen = new Map<string, Violation>()
          for (const v of violations) {
            const kind = v.problem.replace(/\d{3,}|"[^"]*"|\[.*\]/g, "…").slice(0, 80)
            if (!seen.has(kind)) seen.set(kind, v)
          }
          console.log(`${endpoint.key}: ${violations.length} violations\n${JSON.stringify([...seen.values()], null, 1)}`)
        }
        assert.strictEqual(violations.length, 0, `${endpoint.key}: ${violations[0]?.problem}`)
      }), timeout)
  }
})
