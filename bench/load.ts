/**
 * One load run, in its own process (the runner starts it pinned to the load core): autocannon
 * against a server already listening, a warm-up first, then the measured run. Latencies are kept
 * per response at full resolution (autocannon's own histogram counts whole milliseconds), so p50 and
 * p99 of sub-millisecond routes are exact.
 *
 * Usage: `node .bench/build/load.mjs <file holding a LoadConfig as JSON>` (the runner bundles it);
 * prints one `LoadResult` as JSON.
 */
import autocannon from "autocannon"
import * as Fs from "node:fs"
import { spanBatch } from "./spans.js"

export type Scenario = "health" | "get" | "post" | "list" | "cursor" | "mixed" | "ceiling" | "execute" | "sequence" | "spans"

export interface LoadConfig {
  readonly url: string
  readonly scenario: Scenario
  readonly connections: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly key: string
  readonly accountId: string
  /** Ids to read (GET by id) or to page after (cursor). */
  readonly ids: ReadonlyArray<string>
  /** The server's process and core: their CPU time is read at the edges of the measured run. */
  readonly serverPid?: number | undefined
  readonly serverCore?: number | undefined
  /** `execute`: the POST each request sends (a model execution through the kit, or the upstream's own endpoint). */
  readonly execute?: { readonly path: string; readonly body: unknown } | undefined
  /**
   * `sequence`: the POSTs each connection sends one after another, round and round (a client
   * calling the parts of one request in turn). A round's steps all take the bodies of one index,
   * the rounds going through them (a question through every step); or, with `bodies` alone, one
   * step.
   */
  readonly sequence?: ReadonlyArray<SequenceStep> | undefined
  /** `spans`: each request a `PUT /v5/spans/batch` of this many new spans (ids never sent before). */
  readonly spansPerBatch?: number | undefined
}

/**
 * One step of a `sequence`: its method (POST when absent) and its path, or one path per round
 * (`paths`, taken in turn like the bodies: a cursor page after a different id each time).
 */
export interface SequenceStep {
  readonly method?: string | undefined
  readonly path: string
  readonly paths?: ReadonlyArray<string> | undefined
  readonly bodies: ReadonlyArray<unknown>
}

export interface LoadResult {
  readonly scenario: Scenario
  readonly requests: number
  readonly seconds: number
  readonly rps: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly statusCodes: Record<string, number>
  /** CPU seconds the server process used during the measured run (all its threads). */
  readonly serverCpuSeconds: number
  /** The server's core during the measured run: seconds busy (anyone), stolen by the hypervisor. */
  readonly coreBusySeconds: number
  readonly coreStealSeconds: number
  /** The measured run's bounds on the monotonic clock, in µs (what V8's CPU profile uses). */
  readonly startedAtUs: number
  readonly endedAtUs: number
  /** `sequence`: each step's latencies (a connection's responses come in its steps' order). */
  readonly steps?: ReadonlyArray<{ readonly p50: number; readonly p99: number }>
}

const requestsFor = (config: LoadConfig): ReadonlyArray<autocannon.Request> => {
  let next = 0
  const nextId = () => config.ids[next++ % config.ids.length]!
  const get: autocannon.Request = {
    method: "GET",
    setupRequest: (request) => ({ ...request, path: `/v4/model-groups/${nextId()}` })
  }
  const post: autocannon.Request = {
    method: "POST",
    path: "/v4/model-groups",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "benchmark group", description: "created by the benchmark", account_id: config.accountId })
  }
  switch (config.scenario) {
    case "health":
      return [{ method: "GET", path: "/health" }]
    case "get":
    case "ceiling":
      return [get]
    case "post":
      return [post]
    case "list":
      return [{ method: "GET", path: "/v4/model-groups?limit=100" }]
    case "cursor":
      return [{
        method: "GET",
        setupRequest: (request) => ({ ...request, path: `/v5/agent-runtime/deployments?limit=100&starting_after=${nextId()}` })
      }]
    case "execute":
      return [{
        method: "POST",
        path: config.execute!.path,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(config.execute!.body)
      }]
    case "sequence": {
      // the round's index, taken by its first step and kept for the others in the connection's context
      let round = 0
      const bodies = config.sequence!.map((step) => step.bodies.map((body) => JSON.stringify(body)))
      return config.sequence!.map((step, i) => ({
        method: step.method ?? "POST",
        path: step.path,
        headers: { "content-type": "application/json" },
        setupRequest: (request, context) => {
          if (i === 0) context.round = round++
          const own = bodies[i]!
          const at = context.round as number
          return { ...request, body: own[at % own.length]!, ...(step.paths === undefined ? {} : { path: step.paths[at % step.paths.length]! }) }
        }
      }))
    }
    case "spans": {
      // every batch's ids new: this process's pid and a counter (the warm-up's batches too)
      let batch = 0
      const prefix = `bench-${process.pid}`
      return [{
        method: "PUT",
        path: "/v5/spans/batch",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(spanBatch(prefix, batch++, config.spansPerBatch!, Date.now())) })
      }]
    }
    case "mixed":
      // autocannon sends a connection's requests in this order, round and round: 9 reads, 1 write
      return [get, get, get, get, get, get, get, get, get, post]
  }
}

const TICK = 100 // USER_HZ: /proc counts CPU time in 1/100 s on Linux

/** utime + stime of a process, in seconds (0 when /proc is not there). */
const processCpu = (pid: number | undefined) => {
  if (pid === undefined) return 0
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / TICK
  } catch {
    return 0
  }
}

/** A core's busy and stolen time so far, in seconds, from /proc/stat. */
const coreCpu = (core: number | undefined) => {
  if (core === undefined) return { busy: 0, steal: 0 }
  try {
    const line = Fs.readFileSync("/proc/stat", "utf8").split("\n").find((l) => l.startsWith(`cpu${core} `))
    const [user, nice, system, , , irq, softirq, steal] = line!.split(/\s+/).slice(1).map(Number)
    return { busy: (user! + nice! + system! + irq! + softirq!) / TICK, steal: steal! / TICK }
  } catch {
    return { busy: 0, steal: 0 }
  }
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

export const runLoad = async (config: LoadConfig): Promise<LoadResult> => {
  const base = {
    url: config.url,
    connections: config.connections,
    pipelining: 1,
    timeout: 30,
    headers: { "x-api-key": config.key },
    requests: requestsFor(config)
  }
  if (config.warmupSeconds > 0) await autocannon({ ...base, duration: config.warmupSeconds })
  let latencies = new Float64Array(1 << 16)
  let count = 0
  // `sequence`: the step of each response, from how many its connection had before
  const stepCount = config.sequence?.length ?? 1
  const answered = new Map<unknown, number>()
  const stepLatencies: Array<Array<number>> = Array.from({ length: stepCount }, () => [])
  const cpuBefore = processCpu(config.serverPid)
  const coreBefore = coreCpu(config.serverCore)
  const startedAtUs = Number(process.hrtime.bigint() / 1000n)
  const run = autocannon({ ...base, duration: config.seconds })
  run.on("response", (client, _status, _bytes, responseTime) => {
    if (stepCount > 1) {
      const before = answered.get(client) ?? 0
      answered.set(client, before + 1)
      stepLatencies[before % stepCount]!.push(responseTime)
    }
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2)
      grown.set(latencies)
      latencies = grown
    }
    latencies[count++] = responseTime
  })
  const result = await run
  const endedAtUs = Number(process.hrtime.bigint() / 1000n)
  const cpuAfter = processCpu(config.serverPid)
  const coreAfter = coreCpu(config.serverCore)
  const sorted = latencies.subarray(0, count).sort()
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count]))
  return {
    scenario: config.scenario,
    requests: result.requests.total,
    seconds: result.duration,
    rps: result.requests.total / result.duration,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: percentile(sorted, 100),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    serverCpuSeconds: cpuAfter - cpuBefore,
    coreBusySeconds: coreAfter.busy - coreBefore.busy,
    coreStealSeconds: coreAfter.steal - coreBefore.steal,
    startedAtUs,
    endedAtUs,
    ...(stepCount > 1
      ? {
        steps: stepLatencies.map((values) => {
          const step = Float64Array.from(values).sort()
          return { p50: percentile(step, 50), p99: percentile(step, 99) }
        })
      }
      : {})
  }
}

if (process.argv[1] !== undefined && import.meta.url === `file://${process.argv[1]}`) {
  const config = JSON.parse(Fs.readFileSync(process.argv[2]!, "utf8")) as LoadConfig
  process.stdout.write(JSON.stringify(await runLoad(config)) + "\n")
}
