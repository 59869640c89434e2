/**
 * `npm run bench` — the benchmark runner (never part of `npm test`).
 *
 * Builds the three servers (the kit, the Fastify peer, the `node:http` ceiling), seeds SQLite files
 * in the kit's format, starts every server pinned to one core (`taskset -c 0`), drives each with
 * autocannon pinned to the other core (`taskset -c 1`), and prints and writes a table. The figures
 * that matter are ratios: every run measures the kit and both references in the same session.
 *
 *   npm run bench                 full run: 3 rounds of 10 s per scenario and server (about 12 min)
 *   npm run bench -- --quick      1 round of 2.5 s (1–1.5 min once the seeded files are cached)
 *   npm run bench -- --profile    one GET-by-id run of the kit under `node --cpu-prof`; where time goes
 *   npm run bench -- --profile-start   the same for one cold start (spawn to the first 200)
 *   npm run bench -- --cold       cold starts only (kit, peer, ceiling, `npm start`, tsx): 5 of each
 *   npm run bench -- --profile-health  the same for `GET /health` (no key, no database: the stack alone)
 *   npm run bench -- --profile-post    the same for `POST /v4/model-groups`
 *   npm run bench -- --lifecycles      1,000 application deployments started at once in `immediate`
 *                                      progression: time until all are READY, and GET by id during
 *                                      the burst vs without (also the end of a full run)
 *   npm run bench -- --execution       chat completions through the kit to a local OpenAI-compatible
 *                                      upstream vs the same upstream called directly: added p50, req/s
 *                                      ratio; the built-in embeddings' texts/s (also in a full run)
 *   npm run bench -- --evaluations     an evaluation of 10,000 items × one chat completion task, on
 *                                      builtin/echo and through a local upstream (16 at once): time
 *                                      from the create to `completed` (also in a full run)
 *   npm run bench -- --streams         1,000 subscribers of one task's live stream while 100 messages a
 *                                      second are written: delivery latency p50/p99, every frame once, RSS
 *   npm run bench -- --knowledge-bases an upload of 1,000 files (30 MB of text, 100,000 chunks) with
 *                                      the built-in embeddings: MB/s; then queries on those chunks:
 *                                      latency p50/p99 (also in a full run)
 *   npm run bench -- --applications    a RAG variant (10,000 chunks, the built-in model) processed at 10
 *                                      connections vs its parts called directly (KB query, then chat
 *                                      completion); recorded vs unsaved (also in a full run; about 1.5 min)
 *   npm run bench -- --data-plane      spans ingested (PUT /v5/spans/batch of 50, 10 connections): spans/s; the kit's tracer on vs off;
 *                                      searches on 1,000,000 spans: p50 each; a 100 MB file uploaded and
 *                                      downloaded: MB/s, RSS growth (also in a full run; about 1.5 min)
 *   npm run bench -- --agents          1,000 run schedules firing every second to a sync agent on loopback:
 *                                      fires delivered/s, fire-to-delivery p50/p99, GET by id beside them vs
 *                                      alone; LangGraph checkpoints put + get-tuple pairs/s (about 1.5 min)
 *   npm run bench -- --evaluations-v4  a builder v4 evaluation of 1,000 test cases (3-node variant, the built-in
 *                                      model and judge): seconds to COMPLETED; 10 annotators claiming and
 *                                      answering 1,000 tasks: round trips/s, none handed out twice
 *   --unpinned                         with any mode: no `taskset`, every process on every core
 *   BENCH_KIT_NODE_ARGS="--trace-gc"   Node options for every kit the bench starts (to try V8 flags)
 *   BENCH_KIT_ENV="PLATFORM_X=1 …"     settings for every kit the bench starts (the bench's own
 *                                      environment's PLATFORM_* are not passed on)
 *
 * Every run ends its output with one JSON line of ratios for other tools (docs/benchmarks.md
 * "Running it"). Results are written under `.bench/results/` (git-ignored); docs/benchmarks.md
 * "Results" holds the current figures.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import { promisify } from "node:util"
import * as Fs from "node:fs"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import Database from "better-sqlite3"
import { build, type Built } from "./build.js"
import type { LoadConfig, LoadResult, Scenario } from "./load.js"
import { profileMarkdown, summarize } from "./profile.js"
import { BENCH_KEY, copySeeded, ensureSeeded, type Seeded, traceIdOf } from "./seed.js"
import { SPAN_NAMES, SPANS_PER_TRACE } from "./spans.js"
import { embed } from "../packages/server/src/models/inference/builtin.js"

// ---------------------------------------------------------------------------------------------
// options

const args = new Set(process.argv.slice(2))
const quick = args.has("--quick")
const profileOnly = args.has("--profile")
const profileStart = args.has("--profile-start")
const coldOnly = args.has("--cold")
const profileHealth = args.has("--profile-health")
const profilePost = args.has("--profile-post")
const lifecyclesOnly = args.has("--lifecycles")
const executionOnly = args.has("--execution")
const evaluationsOnly = args.has("--evaluations")
const knowledgeBasesOnly = args.has("--knowledge-bases")
const streamsOnly = args.has("--streams")
const applicationsOnly = args.has("--applications")
const dataPlaneOnly = args.has("--data-plane")
const agentsOnly = args.has("--agents")
const evaluationsV4Only = args.has("--evaluations-v4")
/** Servers and load processes left to the OS's scheduler on every core (the figures of a machine as deployed). */
const unpinned = args.has("--unpinned")
const mode = coldOnly
  ? "cold"
  : profileStart
  ? "profile-start"
  : profileHealth
  ? "profile-health"
  : profilePost
  ? "profile-post"
  : lifecyclesOnly
  ? "lifecycles"
  : executionOnly
  ? "execution"
  : evaluationsOnly
  ? "evaluations"
  : knowledgeBasesOnly
  ? "knowledge-bases"
  : streamsOnly
  ? "streams"
  : applicationsOnly
  ? "applications"
  : dataPlaneOnly
  ? "data-plane"
  : agentsOnly
  ? "agents"
  : evaluationsV4Only
  ? "evaluations-v4"
  : profileOnly
  ? "profile"
  : quick
  ? "quick"
  : "full"

const settings = quick
  ? { rounds: 1, seconds: 2.5, warmupSeconds: 1, coldStarts: 3 }
  : { rounds: 3, seconds: 10, warmupSeconds: 2, coldStarts: 7 }
const CONNECTIONS = 10
/**
 * Pages are measured one request at a time: the figure is the latency of one page (a v4 page on
 * 100k rows costs half a second today, so 10 queued connections would finish almost no request in
 * a quick run).
 */
const PAGE_CONNECTIONS = 1
const GET_ROWS = 100_000
const SMALL_ROWS = 1_000
const LARGE_ROWS = 1_000_000

const root = Path.resolve(import.meta.dirname, "..")
const work = Path.join(root, ".bench")
const dirs = {
  build: Path.join(work, "build"),
  data: Path.join(work, "data"),
  run: Path.join(work, "run"),
  results: Path.join(work, "results"),
  profile: Path.join(work, "profile")
}
for (const dir of Object.values(dirs)) Fs.mkdirSync(dir, { recursive: true })
// the servers' logs are per run
for (const file of Fs.readdirSync(dirs.run)) if (file.endsWith(".log")) Fs.rmSync(Path.join(dirs.run, file))

const log = (line: string) => process.stderr.write(`${line}\n`)

// ---------------------------------------------------------------------------------------------
// cores

interface Pinning {
  /** The core the servers run on (their CPU time is read from /proc for it). */
  readonly serverCore: number | undefined
  readonly server: ReadonlyArray<string>
  readonly load: ReadonlyArray<string>
  readonly note: string
}

/** `taskset -c 0` for servers and `-c 1` for load, when util-linux's taskset and two cores exist. */
const pinning = (): Pinning => {
  const cores = Os.availableParallelism()
  let taskset = false
  try {
    execFileSync("taskset", ["--version"], { stdio: "ignore" })
    taskset = true
  } catch {
    taskset = false
  }
  if (unpinned) return { serverCore: undefined, server: [], load: [], note: "not pinned (--unpinned): every process on every core" }
  if (!taskset || cores < 2) {
    const why = !taskset ? "taskset (util-linux) not found" : `only ${cores} core`
    log(`warning: ${why}: servers and load generator are NOT pinned; figures are not comparable`)
    return { serverCore: undefined, server: [], load: [], note: `not pinned (${why})` }
  }
  // the runner itself stays off the server's core too
  execFileSync("taskset", ["-a", "-p", "-c", "1", String(process.pid)], { stdio: "ignore" })
  return { serverCore: 0, server: ["taskset", "-c", "0"], load: ["taskset", "-c", "1"], note: "server on core 0, load generator on core 1 (taskset)" }
}

// ---------------------------------------------------------------------------------------------
// processes

type ServerKind = "kit" | "fastify" | "ceiling" | "upstream" | "proxy"

interface Running {
  readonly name: string
  readonly kind: ServerKind
  readonly url: string
  readonly port: number
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as Net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** One HTTP GET; the status, or 0 when the connection fails. */
const probe = (url: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve) => {
    const request = Http.get(url, { headers, agent: false }, (response) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode ?? 0))
    })
    request.on("error", () => resolve(0))
    request.setTimeout(5_000, () => request.destroy())
  })

const cleanEnv = () => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("PLATFORM_") && key !== "DATABASE_URL" && !key.startsWith("NODE_OPTIONS")) env[key] = value
  }
  return env
}

const startServer = async (options: {
  readonly name: string
  readonly kind: ServerKind
  readonly command: ReadonlyArray<string>
  readonly database?: string
  readonly pin: Pinning
  readonly nodeArgs?: ReadonlyArray<string>
  readonly port?: number
  readonly env?: Record<string, string>
}): Promise<Running> => {
  const port = options.port ?? await freePort()
  const env: Record<string, string> = { ...cleanEnv(), PORT: String(port), HOST: "127.0.0.1", ...options.env }
  if (options.kind === "kit" && options.database !== undefined) env.DATABASE_URL = `sqlite:${options.database}`
  // BENCH_KIT_ENV: settings for every kit the bench starts ("NAME=value …"), to compare a setting's values
  if (options.kind === "kit") {
    for (const pair of (process.env.BENCH_KIT_ENV ?? "").split(" ").filter((part) => part.includes("="))) {
      env[pair.slice(0, pair.indexOf("="))] = pair.slice(pair.indexOf("=") + 1)
    }
  }
  if (options.kind === "fastify" && options.database !== undefined) env.BENCH_DB = options.database
  const out = Fs.openSync(Path.join(dirs.run, `${options.name}.log`), "a")
  // BENCH_KIT_NODE_ARGS: Node options for every kit the bench starts (space-separated), to try flags
  const kitArgs = options.kind === "kit" ? (process.env.BENCH_KIT_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "") : []
  const [command, ...rest] = [...options.pin.server, ...options.command.slice(0, 1), ...kitArgs, ...(options.nodeArgs ?? []), ...options.command.slice(1)]
  const child = spawn(command!, rest, { env, stdio: ["ignore", out, out], cwd: root })
  Fs.closeSync(out)
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { name: options.name, kind: options.kind, url: `http://127.0.0.1:${port}`, port, child, exited }
}

const waitReady = async (server: Running, path = "/health", headers: Record<string, string> = {}, timeoutMs = 60_000) => {
  const deadline = performance.now() + timeoutMs
  let exited = false
  void server.exited.then(() => (exited = true))
  while (performance.now() < deadline) {
    if (exited) throw new Error(`${server.name} exited before it answered; see .bench/run/${server.name}.log`)
    if ((await probe(server.url + path, headers)) === 200) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`${server.name} did not answer within ${timeoutMs} ms`)
}

const stopServer = async (server: Running) => {
  if (server.child.exitCode !== null) return
  server.child.kill("SIGINT")
  const timer = setTimeout(() => server.child.kill("SIGKILL"), 10_000)
  await server.exited
  clearTimeout(timer)
}

/** Resident set size and its peak, in MiB, from /proc. */
const memoryOf = (server: Running) => {
  try {
    const status = Fs.readFileSync(`/proc/${server.child.pid}/status`, "utf8")
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN)
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 }
  } catch {
    return { rss: NaN, peak: NaN }
  }
}

/** CPU seconds a process has used (user + system), from `/proc`; NaN where there is none. */
const cpuSecondsOf = (pid: number | undefined) => {
  try {
    const fields = Fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return NaN
  }
}

let loadRuns = 0
const runLoad = async (built: Built, pin: Pinning, config: LoadConfig): Promise<LoadResult> => {
  const file = Path.join(dirs.run, `load-${process.pid}-${loadRuns++}.json`)
  Fs.writeFileSync(file, JSON.stringify({ ...config, serverCore: pin.serverCore }))
  const [command, ...rest] = [...pin.load, process.execPath, built.load, file]
  const child = spawn(command!, rest, { stdio: ["ignore", "pipe", "inherit"], cwd: root })
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
  Fs.rmSync(file, { force: true })
  if (code !== 0) throw new Error(`load generator exited with ${code}`)
  return JSON.parse(output.trim().split("\n").pop()!) as LoadResult
}

// ---------------------------------------------------------------------------------------------
// measurements

interface Measured {
  readonly scenario: string
  readonly server: ServerKind
  readonly runs: Array<LoadResult>
  rss: number
}

/** The value at quantile `q` (0–1) of ascending `sorted`; NaN when it is empty. */
const quantile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const summary = (m: Measured) => ({
  rps: median(m.runs.map((r) => r.rps)),
  /** Requests per CPU-second of the server: throughput per core, whatever else ran on it. */
  perCpu: median(m.runs.map((r) => r.requests / r.serverCpuSeconds)),
  cpuShare: median(m.runs.map((r) => r.serverCpuSeconds / r.seconds)),
  othersShare: median(m.runs.map((r) => Math.max(0, r.coreBusySeconds - r.serverCpuSeconds) / r.seconds)),
  stealShare: median(m.runs.map((r) => r.coreStealSeconds / r.seconds)),
  p50: median(m.runs.map((r) => r.p50)),
  p99: median(m.runs.map((r) => r.p99)),
  bad: m.runs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
  requests: m.runs.reduce((n, r) => n + r.requests, 0)
})

/** Time from spawning the server to the first 200 of an authenticated GET by id. */
const coldStart = async (command: ReadonlyArray<string>, kind: ServerKind, database: string, path: string, pin: Pinning, nodeArgs: ReadonlyArray<string> = []) => {
  const started = performance.now()
  const server = await startServer({ name: `cold-${kind}`, kind, command, database, pin, nodeArgs })
  try {
    let exited = false
    void server.exited.then(() => (exited = true))
    while (!exited) {
      if ((await probe(server.url + path, { "x-api-key": BENCH_KEY })) === 200) return performance.now() - started
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    throw new Error(`${kind} exited during a cold start; see .bench/run/cold-${kind}.log`)
  } finally {
    await stopServer(server)
  }
}

/** The commit measured, and whether the working tree had uncommitted changes (read-only git). */
const revision = () => {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim()
    const changed = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root, encoding: "utf8" })
      .split("\n").filter((line) => line.trim() !== "").length
    return changed === 0 ? commit : `${commit} + ${changed} uncommitted file(s)`
  } catch {
    return "unknown"
  }
}

const machine = () => {
  const cpus = Os.cpus()
  return {
    cpu: `${cpus[0]?.model ?? "unknown"} (${cpus.length} cores visible)`,
    memory: `${(Os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${Os.type()} ${Os.release()} ${Os.arch()}`,
    node: process.version,
    load: Os.loadavg()
  }
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "—"
const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0)) : "—")
const rate = (n: number) => fmt(n, Number.isFinite(n) && n < 10 ? 1 : 0)
const percent = (share: number) => (Number.isFinite(share) ? `${Math.round(share * 100)} %` : "—")
const ratio = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "—")

/**
 * The SQL of the list routes alone, on the seeded files (better-sqlite3 in this process, no HTTP):
 * how much of a page is the page and how much is the count of every match. Medians in ms (of 9
 * runs after a warm-up; keyset pages: of the pages after 9 sample ids, deep and shallow).
 */
const sqlCosts = (main: Seeded, small: Seeded, large: Seeded) => {
  const time = (file: string, sql: string, params: ReadonlyArray<unknown>) => {
    const db = new Database(file, { readonly: true })
    try {
      const statement = db.prepare(sql)
      statement.all(...params)
      const runs: Array<number> = []
      for (let i = 0; i < 9; i++) {
        const started = performance.now()
        statement.all(...params)
        runs.push(performance.now() - started)
      }
      return median(runs)
    } finally {
      db.close()
    }
  }
  const v4 = "FROM model_groups WHERE account_id IN (?)"
  const v5 = "FROM agent_runtime_deployments WHERE account_id IN (?)"
  /** The page after the seeded sample ids (deep and shallow alike), median over 9 of them. */
  const cursor = (seed: Seeded, form: "row value" | "or") => {
    const db = new Database(seed.file, { readonly: true })
    const keyOf = db.prepare<{ created_at: string }>("SELECT created_at FROM agent_runtime_deployments WHERE id = ?")
    const condition = form === "row value" ? "(created_at, id) < (?, ?)" : "(created_at < ? OR (created_at = ? AND id < ?))"
    const statement = db.prepare(`SELECT doc ${v5} AND ${condition} ORDER BY created_at DESC, id DESC LIMIT 101`)
    const runs = seed.sampleIds.slice(0, 10).map((id, i) => {
      const key = keyOf.get(id)!.created_at
      const params = form === "row value" ? [seed.accountId, key, id] : [seed.accountId, key, key, id]
      const started = performance.now()
      statement.all(...params)
      return i === 0 ? NaN : performance.now() - started
    })
    db.close()
    return median(runs.filter((n) => !Number.isNaN(n)))
  }
  return {
    "v4 page, as the kit runs it (COUNT(*) OVER () in the page query)": time(
      main.file,
      `SELECT doc, COUNT(*) OVER () AS total ${v4} ORDER BY created_at DESC, id DESC LIMIT 100 OFFSET 0`,
      [main.accountId]
    ),
    "v4 page query alone (LIMIT 100)": time(main.file, `SELECT doc ${v4} ORDER BY created_at DESC, id DESC LIMIT 100 OFFSET 0`, [main.accountId]),
    "v4 COUNT(*) alone": time(main.file, `SELECT COUNT(*) AS total ${v4}`, [main.accountId]),
    "v5 keyset page query, 1k rows": cursor(small, "row value"),
    "v5 COUNT(*) for `total`, 1k rows": time(small.file, `SELECT COUNT(*) AS total ${v5}`, [small.accountId]),
    "v5 keyset page query, 1M rows": cursor(large, "row value"),
    "v5 keyset page query written `k < ? OR (k = ? AND id < ?)` (before this slice), 1M rows": cursor(large, "or"),
    "v5 COUNT(*) for `total`, 1M rows": time(large.file, `SELECT COUNT(*) AS total ${v5}`, [large.accountId])
  }
}

// ---------------------------------------------------------------------------------------------
// the profile mode

const profileTitles = {
  get: `GET /v4/model-groups/{id} over ${GET_ROWS.toLocaleString("en")} rows`,
  health: "GET /health",
  post: "POST /v4/model-groups"
} as const

const profileGet = async (built: Built, pin: Pinning, main: Seeded, scenario: keyof typeof profileTitles = "get") => {
  const database = copySeeded(main, Path.join(dirs.run, "profile-main.db")).file
  for (const file of Fs.readdirSync(dirs.profile)) Fs.rmSync(Path.join(dirs.profile, file))
  const kit = await startServer({
    name: "profile-kit",
    kind: "kit",
    command: [process.execPath, built.kit],
    nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dirs.profile}`, "--cpu-prof-interval=200"],
    database,
    pin
  })
  await waitReady(kit)
  const result = await runLoad(built, pin, {
    url: kit.url,
    scenario,
    connections: CONNECTIONS,
    seconds: 10,
    warmupSeconds: 2,
    key: main.key,
    accountId: main.accountId,
    ids: main.sampleIds,
    serverPid: kit.child.pid
  })
  await stopServer(kit)
  const profiles = Fs.readdirSync(dirs.profile).filter((file) => file.endsWith(".cpuprofile"))
  if (profiles.length === 0) throw new Error("the kit wrote no CPU profile")
  const file = Path.join(dirs.profile, profiles[0]!)
  const text = [
    `${profileTitles[scenario]}, ${CONNECTIONS} connections, 2 s warm-up + 10 s:`,
    `${fmt(result.rps)} req/s, ${fmt(result.requests / result.serverCpuSeconds)} req per CPU-s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms (under the profiler; samples of the 10 s measured run only)`,
    "",
    profileMarkdown(summarize(file, { top: 30, window: { fromUs: result.startedAtUs, toUs: result.endedAtUs } }))
  ].join("\n")
  const summaryFile = `profile-${scenario}.md`
  Fs.writeFileSync(Path.join(dirs.results, summaryFile), text + "\n")
  process.stdout.write(text + "\n")
  log(`profile: ${Path.relative(root, file)} (open it in Chrome DevTools); summary in .bench/results/${summaryFile}`)
}

const profileColdStart = async (built: Built, pin: Pinning, main: Seeded) => {
  const database = copySeeded(main, Path.join(dirs.run, "profile-main.db")).file
  for (const file of Fs.readdirSync(dirs.profile)) Fs.rmSync(Path.join(dirs.profile, file))
  const path = `/v4/model-groups/${main.sampleIds[0]}`
  const cold = await coldStart([process.execPath, built.kit], "kit", database, path, pin, [
    "--cpu-prof",
    `--cpu-prof-dir=${dirs.profile}`,
    "--cpu-prof-interval=100"
  ])
  const profiles = Fs.readdirSync(dirs.profile).filter((file) => file.endsWith(".cpuprofile"))
  if (profiles.length === 0) throw new Error("the kit wrote no CPU profile")
  const text = [
    `Cold start of the kit to the first 200 of a GET by id: ${fmt(cold)} ms under the profiler (the profile runs on until the process stops).`,
    "",
    profileMarkdown(summarize(Path.join(dirs.profile, profiles[0]!), { top: 30 }))
  ].join("\n")
  Fs.writeFileSync(Path.join(dirs.results, "profile-start.md"), text + "\n")
  process.stdout.write(text + "\n")
}

/**
 * `--cold`: the cold-start figures alone, 5 starts of each (the first start through tsx and through
 * `npm start` only warms their caches and is dropped), in rotation, with the process's CPU time.
 */
const coldStartsOnly = async (built: Built, pin: Pinning, main: Seeded) => {
  const database = copySeeded(main, Path.join(dirs.run, "cold-main.db")).file
  const path = `/v4/model-groups/${main.sampleIds[0]}`
  const commands: Record<string, readonly [ReadonlyArray<string>, ServerKind, string, ReadonlyArray<string>]> = {
    kit: [[process.execPath, built.kit], "kit", database, []],
    fastify: [[process.execPath, built.fastify], "fastify", database, []],
    ceiling: [[process.execPath, built.ceiling], "ceiling", "", []],
    "kit (npm start: build + bundle)": [["npm", "start", "--silent"], "kit", database, []],
    "kit (tsx, sources)": [[process.execPath, Path.join(root, "packages/server/src/bin.ts")], "kit", database, ["--import", "tsx"]]
  }
  const cold: Record<string, Array<number>> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]))
  for (let i = 0; i < 6; i++) {
    for (const [name, [command, kind, file, nodeArgs]] of Object.entries(commands)) {
      const ms = await coldStart(command, kind, file, path, pin, nodeArgs)
      if (i > 0 || !name.startsWith("kit (")) cold[name]!.push(ms)
    }
  }
  for (const name of ["kit", "fastify", "ceiling"]) cold[name]!.shift()
  const text = [
    `Cold start (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --cold\`, load average ${Os.loadavg().map((l) => l.toFixed(2)).join(" / ")}): spawn to the first 200 of an authenticated GET by id on the migrated ${GET_ROWS.toLocaleString("en")}-row file (ms).`,
    "",
    "| server | median | min | max | starts |",
    "|---|---:|---:|---:|---:|",
    ...Object.entries(cold).map(([name, values]) => `| ${name} | ${fmt(median(values))} | ${fmt(Math.min(...values))} | ${fmt(Math.max(...values))} | ${values.length} |`)
  ].join("\n")
  Fs.writeFileSync(Path.join(dirs.results, "cold.md"), text + "\n")
  process.stdout.write(text + "\n" + JSON.stringify({ cold_start_ms: median(cold.kit!), fastify_cold_start_ms: median(cold.fastify!), npm_start_cold_start_ms: median(cold["kit (npm start: build + bundle)"]!) }) + "\n")
}

/** How many lifecycles the burst starts, and how many of their creates are in flight at once. */
const BURST = 1_000
const BURST_IN_FLIGHT = 50

/** A kit in `immediate` progression on a copy of the 100k-row file of its own (`<name>-main.db`). */
const immediateKit = async (name: string, built: Built, pin: Pinning, main: Seeded, env: Record<string, string> = {}) => {
  const database = copySeeded(main, Path.join(dirs.run, `${name}-main.db`)).file
  const server = await startServer({
    name: `kit-${name}`,
    kind: "kit",
    command: [process.execPath, built.kit],
    database,
    pin,
    env: { PLATFORM_PROGRESSION: "immediate", ...env }
  })
  return { database, server }
}

/** JSON calls to `kit` with `key`, any answer but 200 thrown. */
const caller = (kit: Running, key: string) => async (method: string, path: string, body?: unknown) => {
  const headers = { "x-api-key": key, "content-type": "application/json" }
  const response = await fetch(`${kit.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

/**
 * The engine under a burst (docs/engine.md): a kit in `immediate` progression on a copy of the
 * 100k-row file; GET by id measured alone, then again while `BURST` application deployments are
 * created (`BURST_IN_FLIGHT` at a time); the time until every create is answered and until every
 * deployment is READY (read from the file, read-only). Then a second burst, GET by id measured
 * once its creates are answered: beside its lifecycles alone.
 */
const lifecycles = async (built: Built, pin: Pinning, main: Seeded) => {
  const { database, server } = await immediateKit("lifecycles", built, pin, main)
  const headers = { "x-api-key": main.key, "content-type": "application/json" }
  // the variant the deployments serve (a deployment names a stored variant of its account)
  const call = caller(server, main.key)
  const spec = await call("POST", "/v4/application-specs", { name: "burst", description: "burst", account_id: main.accountId })
  const variant = await call("POST", "/v4/application-variants", {
    name: "v0",
    version: "V0",
    application_spec_id: spec.id,
    account_id: main.accountId,
    configuration: {
      nodes: [{ id: "in", application_node_schema_id: "text_input_schema" }, { id: "out", application_node_schema_id: "text_output_schema" }],
      edges: [{ from_node: "in", from_field: "input-text", to_node: "out", to_field: "output-text" }]
    }
  })
  const create = (i: number) =>
    fetch(`${server.url}/v4/application-deployments`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: `burst ${i}`, endpoint: "https://example.org", application_variant_id: variant.id, is_active: true, account_id: main.accountId })
    }).then(async (response) => {
      if (response.status !== 200) throw new Error(`create answered ${response.status}: ${await response.text()}`)
    })
  const pending = () => {
    const db = new Database(database, { readonly: true, fileMustExist: true })
    try {
      return Number((db.prepare("SELECT COUNT(*) AS n FROM application_deployments WHERE status = 'PENDING'").get() as { n: number }).n)
    } finally {
      db.close()
    }
  }
  const getLoad = () =>
    runLoad(built, pin, {
      url: server.url,
      scenario: "get",
      connections: CONNECTIONS,
      seconds: settings.seconds,
      warmupSeconds: 0,
      key: main.key,
      accountId: main.accountId,
      ids: main.sampleIds,
      serverPid: server.child.pid
    })
  /** Resolves once no deployment is PENDING, looking every `ms`. */
  const nonePending = async (ms: number) => {
    while (pending() > 0) await new Promise((resolve) => setTimeout(resolve, ms))
  }
  try {
    await waitReady(server)
    // the engine loaded and warm: one lifecycle to its end
    await create(-1)
    await nonePending(50)
    const alone = await getLoad()

    /** `BURST` creates, `BURST_IN_FLIGHT` at a time (names from `from` on); resolves when every one is answered. */
    const burst = (from: number) => {
      let next = from
      return Promise.all(Array.from({ length: BURST_IN_FLIGHT }, async () => {
        while (next < from + BURST) await create(next++)
      }))
    }
    const started = performance.now()
    let answeredMs = NaN
    const creates = burst(0).then(() => (answeredMs = performance.now() - started))
    const during = await getLoad()
    await creates
    await nonePending(100)
    const doneMs = performance.now() - started
    const rss = memoryOf(server).rss

    // a second burst, GET by id measured once its creates are answered: the requests beside the
    // lifecycles alone (the creates of the first burst are requests too, 50 at a time against
    // the GETs' 10); the lifecycles must still be running when the measure ends
    await burst(BURST)
    const lifecyclesOnly = await getLoad()
    const pendingAfter = pending()
    if (pendingAfter === 0) process.stdout.write("the second burst's lifecycles ended before its GET measure did: its figure is partly alone\n")
    await nonePending(100)

    // a third burst under a light load: GET by id one at a time from this process, a millisecond
    // apart, until every lifecycle is READY: the engine runs in the time the requests leave
    let polling = true
    const lightLatencies: Array<number> = []
    const lightLoad = (async () => {
      for (let i = 0; polling; i++) {
        const sent = performance.now()
        const response = await fetch(`${server.url}/v4/model-groups/${main.sampleIds[i % main.sampleIds.length]}`, { headers })
        if (response.status !== 200) throw new Error(`GET answered ${response.status}`)
        await response.arrayBuffer()
        lightLatencies.push(performance.now() - sent)
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
    })()
    // its figures alone: 3 s with nothing else running
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const lightBefore = [...lightLatencies].sort((a, b) => a - b)
    const lightStarted = performance.now()
    const lightFrom = lightLatencies.length
    await burst(2 * BURST)
    await nonePending(100)
    const lightDoneMs = performance.now() - lightStarted
    const lightDuring = lightLatencies.slice(lightFrom).sort((a, b) => a - b)
    polling = false
    await lightLoad

    const text = [
      `Lifecycles (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --lifecycles\`, ${mode} run): ${BURST.toLocaleString("en")} application deployments created ${BURST_IN_FLIGHT} at a time on the ${GET_ROWS.toLocaleString("en")}-row file, \`immediate\` progression.`,
      "",
      "| measure | value |",
      "|---|---:|",
      `| every create answered | ${fmt(answeredMs / 1000, 1)} s (${fmt(BURST / (answeredMs / 1000))} creates/s) |`,
      `| every deployment READY | ${fmt(doneMs / 1000, 1)} s (${fmt(BURST / (doneMs / 1000))} lifecycles/s) |`,
      `| GET by id alone: req/s, p50, p99 | ${rate(alone.rps)}, ${ms(alone.p50)} ms, ${ms(alone.p99)} ms |`,
      `| GET by id during the burst: req/s, p50, p99 | ${rate(during.rps)} (${ratio(during.rps / alone.rps)}), ${ms(during.p50)} ms, ${ms(during.p99)} ms |`,
      `| GET by id beside a second burst's lifecycles, its creates answered: req/s, p50, p99 | ${rate(lifecyclesOnly.rps)} (${ratio(lifecyclesOnly.rps / alone.rps)}), ${ms(lifecyclesOnly.p50)} ms, ${ms(lifecyclesOnly.p99)} ms (${pendingAfter.toLocaleString("en")} still PENDING at its end) |`,
      `| every deployment of a third burst READY, under a light load (GET by id one at a time, 1 ms apart) | ${fmt(lightDoneMs / 1000, 1)} s (${fmt(BURST / (lightDoneMs / 1000))} lifecycles/s) |`,
      `| that light load's GET by id, p50 and p99: alone (3 s before), during the third burst | ${ms(quantile(lightBefore, 0.5))} ms and ${ms(quantile(lightBefore, 0.99))} ms; ${ms(quantile(lightDuring, 0.5))} ms and ${ms(quantile(lightDuring, 0.99))} ms (${fmt(lightDuring.length / (lightDoneMs / 1000))} GET/s) |`,
      `| RSS after | ${fmt(rss)} MiB |`
    ].join("\n")
    Fs.writeFileSync(Path.join(dirs.results, "lifecycles.md"), text + "\n")
    process.stdout.write(text + "\n" + JSON.stringify({
      lifecycles: BURST,
      lifecycles_answered_s: answeredMs / 1000,
      lifecycles_done_s: doneMs / 1000,
      get_rps_alone: alone.rps,
      get_rps_during_burst: during.rps,
      get_p99_alone_ms: alone.p99,
      get_p99_during_burst_ms: during.p99,
      get_rps_beside_lifecycles: lifecyclesOnly.rps,
      get_p99_beside_lifecycles_ms: lifecyclesOnly.p99,
      pending_after_beside_lifecycles: pendingAfter,
      lifecycles_done_light_load_s: lightDoneMs / 1000,
      light_load_get_p50_alone_ms: quantile(lightBefore, 0.5),
      light_load_get_p50_during_ms: quantile(lightDuring, 0.5)
    }) + "\n")
  } finally {
    await stopServer(server)
  }
}

/**
 * Model execution (docs/models.md, docs/benchmarks.md "Model execution"): a kit in `immediate`
 * progression with a deployment whose provider is a constant OpenAI-compatible upstream
 * (bench/upstream-server.ts, on the load generator's core so that the kit's core is the kit's
 * alone), answering at once and then after 20 ms; chat completions through the kit vs the
 * upstream's own endpoint vs a bare `node:http` + undici proxy on the kit's core
 * (bench/proxy-server.ts: the least any Node proxy adds here), alternating, `CONNECTIONS` at a
 * time; the kit both through its v4 execution and through the v5 OpenAI-style front door
 * (`POST /v5/chat/completions`, docs/inference-v5.md). An added latency is a p50 minus the direct
 * p50. Then the built-in embeddings in this process: texts/s.
 */
const execution = async (built: Built, pin: Pinning, main: Seeded) => {
  const { server: kit } = await immediateKit("execution", built, pin, main)
  const headers = { "x-api-key": main.key, "content-type": "application/json" }
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${kit.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`POST ${path} answered ${response.status}: ${text}`)
    return JSON.parse(text)
  }
  /** Through the kit and direct, alternating, against an upstream answering after `delayMs`. */
  const measure = async (delayMs: number) => {
    const upstream = await startServer({
      name: `upstream-${delayMs}ms`,
      kind: "upstream",
      command: [process.execPath, built.upstream],
      pin: { ...pin, server: pin.load },
      env: { UPSTREAM_DELAY_MS: String(delayMs) }
    })
    let proxy: Running | undefined
    try {
      proxy = await startServer({
        name: `proxy-${delayMs}ms`,
        kind: "proxy",
        command: [process.execPath, built.proxy],
        pin,
        env: { UPSTREAM: `${upstream.url}/v1` }
      })
      await waitReady(upstream)
      await waitReady(proxy)
      const model = await post("/v4/models", { name: `bench upstream ${delayMs}`, model_type: "CHAT_COMPLETION", account_id: main.accountId })
      const deployment = await post(`/v4/models/${model.id}/deployments`, {
        name: "bench upstream",
        account_id: main.accountId,
        model_creation_parameters: { provider: "openai_compatible", base_url: `${upstream.url}/v1`, model: "bench-model", max_concurrency: CONNECTIONS * 2 }
      })
      for (let status = deployment.status; status !== "READY";) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        status = ((await (await fetch(`${kit.url}/v4/model-deployments/${deployment.id}`, { headers })).json()) as { status: string }).status
      }
      const through = { path: `/v4/models/${deployment.id}/chat-completions`, body: { chat_history: [], prompt: "Say something short." } }
      const direct = { path: "/v1/chat/completions", body: { model: "bench-model", messages: [{ role: "user", content: "Say something short." }] } }
      const bare = { path: "/chat-completions", body: { prompt: "Say something short." } }
      const frontDoor = { path: "/v5/chat/completions", body: { model: deployment.id, messages: [{ role: "user", content: "Say something short." }] } }
      const runs = { kit: [] as Array<LoadResult>, direct: [] as Array<LoadResult>, proxy: [] as Array<LoadResult>, v5: [] as Array<LoadResult> }
      for (let round = 0; round < settings.rounds; round++) {
        for (const [name, server, execute] of [["direct", upstream, direct], ["proxy", proxy, bare], ["kit", kit, through], ["v5", kit, frontDoor]] as const) {
          const result = await runLoad(built, pin, {
            url: server.url,
            scenario: "execute",
            connections: CONNECTIONS,
            seconds: settings.seconds,
            warmupSeconds: settings.warmupSeconds,
            key: main.key,
            accountId: main.accountId,
            ids: [],
            serverPid: kit.child.pid,
            execute
          })
          if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${name}: ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`)
          runs[name].push(result)
        }
      }
      const of = (which: keyof typeof runs, field: "p50" | "p99" | "rps") => median(runs[which].map((r) => r[field]))
      return {
        delayMs,
        rps: { kit: of("kit", "rps"), direct: of("direct", "rps"), proxy: of("proxy", "rps"), v5: of("v5", "rps") },
        p50: { kit: of("kit", "p50"), direct: of("direct", "p50"), proxy: of("proxy", "p50"), v5: of("v5", "p50") },
        p99: { kit: of("kit", "p99"), direct: of("direct", "p99"), proxy: of("proxy", "p99"), v5: of("v5", "p99") }
      }
    } finally {
      if (proxy !== undefined) await stopServer(proxy)
      await stopServer(upstream)
    }
  }
  try {
    await waitReady(kit)
    // a constant answer at once (what the kit costs, at the most), and after 20 ms (a model's generation)
    const results = [await measure(0), await measure(20)]
    const embeddings = builtinEmbeddingsRate()
    const text = [
      `Execution (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${mode} run, ${settings.rounds} × ${settings.seconds} s): chat completions, ${CONNECTIONS} connections, to a constant OpenAI-compatible upstream on the load core answering at once or after 20 ms; direct, through a bare node:http + undici proxy on the server core (the floor), and through the kit.`,
      "",
      "| upstream answers | req/s direct | req/s through the bare proxy | req/s through the kit (v4) | req/s through the kit (v5) | p50 direct | p50 through the bare proxy | p50 through the kit (v4) | p50 through the kit (v5) | p99 direct | p99 through the kit (v4) |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...results.map((r) =>
        `| ${r.delayMs === 0 ? "at once" : `after ${r.delayMs} ms`} | ${rate(r.rps.direct)} | ${rate(r.rps.proxy)} (${ratio(r.rps.proxy / r.rps.direct)}) | ${rate(r.rps.kit)} (${ratio(r.rps.kit / r.rps.direct)}) | ${rate(r.rps.v5)} (${ratio(r.rps.v5 / r.rps.direct)}) | ${ms(r.p50.direct)} ms | ${ms(r.p50.proxy)} ms (+${ms(r.p50.proxy - r.p50.direct)} ms) | ${ms(r.p50.kit)} ms (+${ms(r.p50.kit - r.p50.direct)} ms) | ${ms(r.p50.v5)} ms (+${ms(r.p50.v5 - r.p50.direct)} ms) | ${ms(r.p99.direct)} ms | ${ms(r.p99.kit)} ms |`
      ),
      "",
      `Built-in embeddings (in process, ${embeddings.texts.toLocaleString("en")} texts of ${embeddings.words} words): ${fmt(embeddings.perSecond)} texts/s.`
    ].join("\n")
    Fs.writeFileSync(Path.join(dirs.results, "execution.md"), text + "\n")
    const [atOnce, model] = results as [typeof results[0], typeof results[0]]
    process.stdout.write(text + "\n" + JSON.stringify({
      execution_rps_ratio_at_once: atOnce.rps.kit / atOnce.rps.direct,
      execution_added_p50_ms_at_once: atOnce.p50.kit - atOnce.p50.direct,
      execution_rps_ratio_20ms: model.rps.kit / model.rps.direct,
      execution_added_p50_ms_20ms: model.p50.kit - model.p50.direct,
      front_door_rps_ratio_20ms: model.rps.v5 / model.rps.direct,
      front_door_added_p50_ms_20ms: model.p50.v5 - model.p50.direct,
      bare_proxy_added_p50_ms_20ms: model.p50.proxy - model.p50.direct,
      bare_proxy_rps_ratio_at_once: atOnce.rps.proxy / atOnce.rps.direct,
      builtin_embeddings_texts_per_s: embeddings.perSecond
    }) + "\n")
  } finally {
    await stopServer(kit)
  }
}

/** How many items the evaluation benchmark runs. */
const EVALUATION_ITEMS = 10_000

/**
 * Evaluations that run (docs/evaluations.md "Running", docs/benchmarks.md "Evaluations"): a kit in
 * `immediate` progression; one evaluation of `EVALUATION_ITEMS` items × one `chat_completion` task,
 * created in one request, polled every 100 ms until it is no longer `running`: on `builtin/echo`,
 * then on a deployment of a constant OpenAI-compatible upstream (on the load core, answering at
 * once) with `max_concurrency` 16. The time from the create's answer to `completed`.
 */
const evaluations = async (built: Built, pin: Pinning, main: Seeded) => {
  const { server: kit } = await immediateKit("evaluations", built, pin, main)
  const call = caller(kit, main.key)
  /** Seconds from the create's answer to the end, and the create's own time, of a run on `model`. */
  const run = async (model: string) => {
    const data = Array.from({ length: EVALUATION_ITEMS }, (_, i) => ({ question: `Question number ${i}: what is ${i} plus ${i}?` }))
    const started = performance.now()
    const created = await call("POST", "/v5/evaluations", {
      name: `bench ${model}`,
      account_id: main.accountId,
      data,
      tasks: [{ task_type: "chat_completion", alias: "reply", configuration: { model, messages: [{ role: "user", content: "{{item.question}}" }] } }]
    })
    const answered = performance.now()
    for (;;) {
      const read = await call("GET", `/v5/evaluations/${created.id}`)
      if (read.status !== "running") {
        if (read.status !== "completed") throw new Error(`the evaluation ended ${read.status}: ${read.status_reason}`)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return { createSeconds: (answered - started) / 1000, runSeconds: (performance.now() - answered) / 1000 }
  }
  try {
    await waitReady(kit)
    const echo = await run("builtin/echo")
    const upstream = await startServer({ name: "upstream-evaluations", kind: "upstream", command: [process.execPath, built.upstream], pin: { ...pin, server: pin.load } })
    let through: Awaited<ReturnType<typeof run>>
    try {
      await waitReady(upstream)
      const model = await call("POST", "/v4/models", { name: "bench evaluations upstream", model_type: "CHAT_COMPLETION", account_id: main.accountId })
      const deployment = await call("POST", `/v4/models/${model.id}/deployments`, {
        name: "bench evaluations upstream",
        account_id: main.accountId,
        model_creation_parameters: { provider: "openai_compatible", base_url: `${upstream.url}/v1`, model: "bench-model", max_concurrency: 16 }
      })
      for (let status = deployment.status; status !== "READY";) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        status = (await call("GET", `/v4/model-deployments/${deployment.id}`)).status
      }
      through = await run(deployment.id)
    } finally {
      await stopServer(upstream)
    }
    const line = (what: string, r: typeof echo) =>
      `| ${what} | ${r.createSeconds.toFixed(2)} s | ${r.runSeconds.toFixed(1)} s | ${fmt(EVALUATION_ITEMS / r.runSeconds)} |`
    const text = [
      `Evaluations (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --evaluations\`): one evaluation of ${EVALUATION_ITEMS.toLocaleString("en")} items × one chat completion task, created in one request; time from the create's answer to \`completed\` (polled every 100 ms).`,
      "",
      "| model | create answered in | create → completed | items/s |",
      "|---|---:|---:|---:|",
      line("builtin/echo", echo),
      line("local upstream (answers at once), 16 at once", through)
    ].join("\n")
    Fs.writeFileSync(Path.join(dirs.results, "evaluations.md"), text + "\n")
    process.stdout.write(text + "\n" + JSON.stringify({
      evaluation_10k_builtin_s: echo.runSeconds,
      evaluation_10k_upstream_s: through.runSeconds
    }) + "\n")
  } finally {
    await stopServer(kit)
  }
}

/** Subscribers of one task's stream, messages written a second, and for how long. */
const STREAM_SUBSCRIBERS = 1_000
const STREAM_RATE = 100
const STREAM_SECONDS = 10
/** Seconds of messages sent first, delivered and checked but not timed (the kit's code warming up). */
const STREAM_WARMUP_SECONDS = 3

/**
 * A task's live stream (docs/agent-tasks.md "Streams"): `STREAM_SUBSCRIBERS` connections to one
 * task's stream (each waits for `connected`), then `STREAM_RATE` messages a second for
 * `STREAM_SECONDS` through `POST /messages` (after `STREAM_WARMUP_SECONDS` of the same, not timed),
 * each carrying the time it was sent; the latency from
 * the send to each subscriber's read of its frame (p50/p99 over every delivery), every frame
 * checked to arrive once and in order, the server's RSS during the run. The subscribers run in a
 * process of their own (bench/stream-subscribers.ts, on the load generator's core).
 */
const taskStreams = async (built: Built, pin: Pinning, main: Seeded) => {
  const { server: kit } = await immediateKit("streams", built, pin, main)
  const call = caller(kit, main.key)
  const headers = { "x-api-key": main.key, "x-selected-account-id": main.accountId }
  try {
    await waitReady(kit)
    const agent = await call("POST", "/agents/register", { name: `bench-${Date.now()}`, description: "bench", acp_url: "http://127.0.0.1:9", acp_type: "sync" })
    const task = (await call("POST", `/agents/${agent.id}/rpc`, { method: "task/create", params: {} })).result
    const [command, ...rest] = [...pin.load, process.execPath, built.subscribers]
    const child = spawn(command!, rest, {
      stdio: ["ignore", "pipe", "inherit"],
      cwd: root,
      env: { ...process.env, STREAM_URL: `${kit.url}/tasks/${task.id}/stream`, STREAM_HEADERS: JSON.stringify(headers), SUBSCRIBERS: String(STREAM_SUBSCRIBERS) }
    })
    let output = ""
    let allConnected!: () => void
    const connectedAll = new Promise<void>((resolve) => (allConnected = resolve))
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("connected\n")) allConnected()
    })
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
    await Promise.race([connectedAll, exited.then((code) => Promise.reject(new Error(`subscribers exited with ${code}`)))])
    const rss: Array<number> = []
    const send = async (count: number, content: () => string) => {
      const started = performance.now()
      for (let i = 0; i < count; i++) {
        const due = started + (i * 1000) / STREAM_RATE
        const wait = due - performance.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
        void call("POST", "/messages", { task_id: task.id, content: { type: "text", author: "agent", content: content() } })
        if (i % STREAM_RATE === 0) rss.push(memoryOf(kit).rss)
      }
    }
    // the warm-up's messages are delivered and checked, their latency not counted
    await send(STREAM_RATE * STREAM_WARMUP_SECONDS, () => "warm-up")
    const sent = STREAM_RATE * STREAM_SECONDS
    const started = performance.now()
    const cpuBefore = [cpuSecondsOf(kit.child.pid), cpuSecondsOf(child.pid)]
    await send(sent, () => String(performance.timeOrigin + performance.now()))
    const elapsed = (performance.now() - started) / 1000
    const [kitBusy, subscribersBusy] = [cpuSecondsOf(kit.child.pid), cpuSecondsOf(child.pid)].map((after, i) => (after - cpuBefore[i]!) / elapsed)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    await call("POST", `/tasks/${task.id}/complete`, {})
    const code = await exited
    if (code !== 0) throw new Error(`subscribers exited with ${code}`)
    const result = JSON.parse(output.trim().split("\n").pop()!) as {
      readonly deliveries: number
      readonly frames_each: [number, number]
      readonly problems: number
      readonly first_problems: ReadonlyArray<string>
      readonly p50: number
      readonly p99: number
      readonly max: number
    }
    const text = [
      `Task streams (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --streams\`): ${STREAM_SUBSCRIBERS.toLocaleString("en")} subscribers of one task's stream (in a process of their own), ${STREAM_RATE} messages a second for ${STREAM_SECONDS} s through \`POST /messages\`, after ${STREAM_WARMUP_SECONDS} s of the same not timed.`,
      "",
      "| deliveries | expected | out of order or repeated | latency p50 | latency p99 | latency max | server RSS (max during the run) | server CPU | subscribers' CPU |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      `| ${result.deliveries.toLocaleString("en")} | ${(sent * STREAM_SUBSCRIBERS).toLocaleString("en")} | ${result.problems} | ${result.p50.toFixed(1)} ms | ${result.p99.toFixed(1)} ms | ${result.max.toFixed(1)} ms | ${Math.max(...rss).toFixed(0)} MiB | ${(kitBusy! * 100).toFixed(0)} % | ${(subscribersBusy! * 100).toFixed(0)} % |`
    ].join("\n")
    Fs.writeFileSync(Path.join(dirs.results, "streams.md"), text + "\n")
    process.stdout.write(text + "\n" + JSON.stringify({
      stream_deliveries: result.deliveries,
      stream_expected: sent * STREAM_SUBSCRIBERS,
      stream_frames_each: result.frames_each,
      stream_problems: result.first_problems,
      stream_latency_p50_ms: result.p50,
      stream_latency_p99_ms: result.p99,
      stream_rss_mb: Math.max(...rss),
      stream_server_cpu: kitBusy,
      stream_subscribers_cpu: subscribersBusy
    }) + "\n")
  } finally {
    await stopServer(kit)
  }
}

/** Files, and paragraphs (each one chunk) per file, of the knowledge-base benchmark. */
const KB_FILES = 1_000
const KB_PARAGRAPHS = 100
/** Queries timed (one at a time) on the 100,000 chunks. */
const KB_QUERIES = 500

/**
 * Knowledge bases (docs/knowledge-bases.md, docs/benchmarks.md "Knowledge bases"): a kit in
 * `immediate` progression whose object store holds `KB_FILES` files of `KB_PARAGRAPHS` paragraphs
 * of about 290 characters (words drawn from a vocabulary of 5,000 made-up words, Zipf-like, so some
 * words are rare and some everywhere); one upload of them all with the built-in embeddings and
 * `character` chunking at 300 characters: one chunk per paragraph. The time from the create's
 * answer to `Completed`, as MB/s of text; then `KB_QUERIES` queries of 2–5 words (`top_k` 10), one
 * at a time: latency p50/p99 as a client sees it. When servers are pinned, the default chunking's
 * ingestion is also timed first on a kit of its own free on every core (ingestion is background
 * work, and no load generator needs the other core in this scenario).
 */
const knowledgeBases = async (built: Built, pin: Pinning, main: Seeded) => {
  const store = Path.join(dirs.run, "object-store")
  const bucket = Path.join(store, "bench")
  // a deterministic generator: the same corpus every run
  let seed = 42
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  const syllables = ["ka", "lo", "mi", "ru", "te", "sa", "po", "ne", "vi", "da", "go", "fu", "ze", "ba", "ri", "xo"]
  const vocabulary = Array.from({ length: 5_000 }, (_, i) => {
    let word = ""
    for (let n = i + 1; n > 0; n = Math.floor(n / 16)) word += syllables[n % 16]
    return word
  })
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!
  const paragraph = () => {
    let text = ""
    while (text.length < 280) text += (text === "" ? "" : " ") + word()
    return text.slice(0, 290)
  }
  let bytes = 0
  if (!Fs.existsSync(Path.join(bucket, `doc-${KB_FILES - 1}.txt`))) {
    Fs.rmSync(bucket, { recursive: true, force: true })
    Fs.mkdirSync(bucket, { recursive: true })
    for (let i = 0; i < KB_FILES; i++) {
      Fs.writeFileSync(Path.join(bucket, `doc-${i}.txt`), Array.from({ length: KB_PARAGRAPHS }, paragraph).join("\n\n"))
    }
  }
  for (const file of Fs.readdirSync(bucket)) bytes += Fs.statSync(Path.join(bucket, file)).size
  /** Seconds from an upload's create to `Completed`, of the whole corpus into a new base of `kit` chunked by `chunking`. */
  const ingestInto = async (kit: Running, name: string, chunking: Record<string, unknown>) => {
    const call = caller(kit, main.key)
    const kb = await call("POST", "/v4/knowledge-bases", { knowledge_base_name: name, embedding_config: { type: "base" }, account_id: main.accountId })
    const base = `/v4/knowledge-bases/${kb.knowledge_base_id}`
    const created = await call("POST", `${base}/uploads`, { data_source_config: { source: "S3", s3_bucket: "bench" }, chunking_strategy_config: chunking })
    const started = performance.now()
    for (;;) {
      const read = await call("GET", `${base}/uploads/${created.upload_id}`)
      if (read.status !== "Running") {
        if (read.status !== "Completed") throw new Error(`the upload ended ${read.status}: ${read.status_reason}`)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const chunks = (await call("GET", `${base}/chunks?max_chunks=1`)).chunks.length
    if (chunks !== 1) throw new Error("no chunk ingested")
    return { base, seconds: (performance.now() - started) / 1000 }
  }
  // the default chunking with the kit free on every core of the machine (its checkpoint thread
  // beside the one that ingests; no load generator needs a core here), on a file of its own; the
  // runner itself is pinned to the load core, which a child would inherit: `taskset` says otherwise
  let machine: { readonly cores: number; readonly seconds: number } | undefined
  if (pin.serverCore !== undefined) {
    const cores = Os.cpus().length
    const everyCore = { ...pin, serverCore: undefined, server: ["taskset", "-c", `0-${cores - 1}`] }
    const { server: free } = await immediateKit("knowledge-bases-machine", built, everyCore, main, { PLATFORM_OBJECT_STORE_ROOT: store })
    try {
      await waitReady(free)
      machine = { cores, seconds: (await ingestInto(free, "bench defaults", { strategy: "character" })).seconds }
    } finally {
      await stopServer(free)
    }
  }
  const { server: kit } = await immediateKit("knowledge-bases", built, pin, main, { PLATFORM_OBJECT_STORE_ROOT: store })
  const call = caller(kit, main.key)
  try {
    await waitReady(kit)
    // the default chunking (1,000 characters, 200 of overlap): what ingestion costs as users run it
    const defaults = await ingestInto(kit, "bench defaults", { strategy: "character" })
    // one chunk per paragraph: the 100,000 chunks the queries run on
    const { base, seconds: ingestSeconds } = await ingestInto(kit, "bench paragraphs", { strategy: "character", chunk_size: 300, chunk_overlap: 0 })
    const chunks = KB_FILES * KB_PARAGRAPHS
    // the first query loads the base's vector index: timed apart
    const firstStarted = performance.now()
    await call("POST", `${base}/query`, { query: `${vocabulary[7]} ${vocabulary[900]}`, top_k: 10 })
    const firstMs = performance.now() - firstStarted
    const latencies: Array<number> = []
    for (let i = 0; i < KB_QUERIES; i++) {
      const query = Array.from({ length: 2 + (i % 4) }, word).join(" ")
      const t = performance.now()
      const answer = await call("POST", `${base}/query`, { query, top_k: 10 })
      latencies.push(performance.now() - t)
      if (answer.chunks.length !== 10) throw new Error(`a query answered ${answer.chunks.length} chunks`)
    }
    latencies.sort((a, b) => a - b)
    const p = (q: number) => quantile(latencies, q)
    const rss = memoryOf(kit).rss
    const text = [
      `Knowledge bases (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --knowledge-bases\`): ${KB_FILES.toLocaleString("en")} files (${fmt(bytes / 1e6)} MB of text) uploaded with the built-in embeddings, chunked by default and one chunk per paragraph (${chunks.toLocaleString("en")} chunks); then ${KB_QUERIES} queries of 2–5 words on those, top_k 10, one at a time.`,
      "",
      "| measure | value |",
      "|---|---:|",
      `| ingestion, default chunking (1,000 / 200): create → Completed | ${defaults.seconds.toFixed(1)} s (${(bytes / 1e6 / defaults.seconds).toFixed(2)} MB/s) |`,
      ...(machine === undefined ? [] : [
        `| the same, the kit on all ${machine.cores} cores of the machine | ${machine.seconds.toFixed(1)} s (${(bytes / 1e6 / machine.seconds).toFixed(2)} MB/s) |`
      ]),
      `| ingestion into ${chunks.toLocaleString("en")} chunks of a paragraph: create → Completed | ${ingestSeconds.toFixed(1)} s (${(bytes / 1e6 / ingestSeconds).toFixed(2)} MB/s) |`,
      `| first query (loads the vector index) | ${ms(firstMs)} ms |`,
      `| query p50 | ${ms(p(0.5))} ms |`,
      `| query p99 | ${ms(p(0.99))} ms |`,
      `| RSS after | ${fmt(rss)} MiB |`
    ].join("\n")
    Fs.writeFileSync(Path.join(dirs.results, "knowledge-bases.md"), text + "\n")
    process.stdout.write(text + "\n" + JSON.stringify({
      kb_ingestion_mb_per_s: bytes / 1e6 / defaults.seconds,
      ...(machine === undefined ? {} : { kb_ingestion_all_cores_mb_per_s: bytes / 1e6 / machine.seconds }),
      kb_ingestion_100k_chunks_mb_per_s: bytes / 1e6 / ingestSeconds,
      kb_query_p50_ms: p(0.5),
      kb_query_p99_ms: p(0.99)
    }) + "\n")
  } finally {
    await stopServer(kit)
  }
}

/** Chunks of the knowledge base the application benchmark's RAG variant retrieves from. */
const APP_CHUNKS = 10_000
/** Its chunks per `LocalChunks` upload (one artifact each; a body well under the 1 MB limit). */
const APP_CHUNKS_PER_UPLOAD = 1_000
/** Questions the load goes through, and chunks retrieved for each. */
const APP_QUESTIONS = 50
const APP_TOP_K = 5
/** Rounds of the three measures, and each one's seconds after its warm-up: about 1 minute. */
const APP_ROUNDS = 3
const APP_SECONDS = 5
const APP_WARMUP_SECONDS = 1

/**
 * Applications that run (docs/applications.md "Processing", docs/benchmarks.md "Applications"): a
 * kit in `immediate` progression; a knowledge base of `APP_CHUNKS` chunks written by hand
 * (`LocalChunks` uploads: made-up words, Zipf-like, embedded by the built-in embeddings); a RAG
 * variant (text input → knowledge base, `top_k` 5 → prompt engineering → completion on the
 * built-in model → text output, the chunks as its metadata). `CONNECTIONS` at a time, the questions
 * in turn, `APP_ROUNDS` rounds alternating: the stored variant's process (recorded as an
 * interaction), the same graph unsaved through `POST /v4/applications/process` (recorded nowhere),
 * and the same parts called directly, one after another per question: the knowledge base's query,
 * then a chat completion on the built-in model of the prompt the client renders from its chunks
 * (checked first to be the variant's answer word for word).
 */
const applications = async (built: Built, pin: Pinning, main: Seeded) => {
  const { server: kit } = await immediateKit("applications", built, pin, main)
  const call = caller(kit, main.key)
  // the same made-up language as the knowledge-base benchmark's, from a seed of its own
  let seed = 7
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  const syllables = ["ka", "lo", "mi", "ru", "te", "sa", "po", "ne", "vi", "da", "go", "fu", "ze", "ba", "ri", "xo"]
  const vocabulary = Array.from({ length: 5_000 }, (_, i) => {
    let word = ""
    for (let n = i + 1; n > 0; n = Math.floor(n / 16)) word += syllables[n % 16]
    return word
  })
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!
  const passage = () => {
    let text = ""
    while (text.length < 280) text += (text === "" ? "" : " ") + word()
    return text.slice(0, 290)
  }
  try {
    await waitReady(kit)
    const setupStarted = performance.now()
    const kb = await call("POST", "/v4/knowledge-bases", { knowledge_base_name: "bench rag", embedding_config: { type: "base" }, account_id: main.accountId })
    const base = `/v4/knowledge-bases/${kb.knowledge_base_id}`
    const uploads: Array<string> = []
    for (let from = 0; from < APP_CHUNKS; from += APP_CHUNKS_PER_UPLOAD) {
      const created = await call("POST", `${base}/uploads`, {
        data_source_config: { source: "LocalChunks", artifact_name: `part-${from}.txt`, artifact_uri: `local://bench/part-${from}` },
        chunks: Array.from({ length: APP_CHUNKS_PER_UPLOAD }, (_, chunk_position) => ({ chunk_position, text: passage() }))
      })
      uploads.push(created.upload_id)
    }
    for (const upload of uploads) {
      for (;;) {
        const read = await call("GET", `${base}/uploads/${upload}`)
        if (read.status !== "Running" && read.status !== "Pending") {
          if (read.status !== "Completed") throw new Error(`an upload ended ${read.status}: ${read.status_reason}`)
          break
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const ingestSeconds = (performance.now() - setupStarted) / 1000

    const node = (id: string, kind: string, configuration: Record<string, unknown> = {}) => ({
      id,
      application_node_schema_id: kind,
      configuration: Object.fromEntries(Object.entries(configuration).map(([key, value]) => [key, { value }]))
    })
    const edge = (from_node: string, from_field: string, to_node: string, to_field: string) => ({ from_node, from_field, to_node, to_field })
    const graph = {
      nodes: [
        node("input", "text_input_schema"),
        node("knowledge_base", "knowledge_base_schema", { kb_id: kb.knowledge_base_id, top_k: APP_TOP_K }),
        node("prompt", "prompt_engineering_schema", { prompt_template: "Answer {{query}} from: {{#chunks}}[{{text}}]{{/chunks}}" }),
        node("completion", "completion_model_schema", { completion_model_id: "builtin" }),
        node("output", "text_output_schema")
      ],
      edges: [
        edge("input", "input-text", "knowledge_base", "query"),
        edge("input", "input-text", "prompt", "query"),
        edge("knowledge_base", "chunks", "prompt", "chunks"),
        edge("prompt", "prompt", "completion", "prompt"),
        edge("completion", "completion", "output", "output-text"),
        edge("knowledge_base", "chunks", "output", "metadata")
      ]
    }
    const spec = await call("POST", "/v4/application-specs", { name: "bench rag", description: "the RAG benchmark", account_id: main.accountId })
    const variant = await call("POST", "/v4/application-variants", {
      name: "rag", version: "V0", application_spec_id: spec.id, account_id: main.accountId, configuration: graph
    })

    // the questions, and what a client calling the parts itself sends for each
    const questions = Array.from({ length: APP_QUESTIONS }, (_, i) => Array.from({ length: 2 + (i % 4) }, word).join(" "))
    const queryBodies: Array<unknown> = []
    const chatBodies: Array<unknown> = []
    for (const question of questions) {
      const found = await call("POST", `${base}/query`, { query: question, top_k: APP_TOP_K })
      const prompt = `Answer ${question} from: ${found.chunks.map((chunk: { text: string }) => `[${chunk.text}]`).join("")}`
      const answer = await call("POST", `/v4/applications/${variant.id}/process`, { inputs: { input: { "input-text": question } } })
      if (answer["output-text"] !== prompt) throw new Error(`the variant answered otherwise than the parts for "${question}"`)
      queryBodies.push({ query: question, top_k: APP_TOP_K })
      chatBodies.push({ model: "builtin", messages: [{ role: "user", content: prompt }] })
    }
    const inputs = (question: string) => ({ input: { "input-text": question } })
    const measures = {
      recorded: [{ path: `/v4/applications/${variant.id}/process`, bodies: questions.map((q) => ({ inputs: inputs(q) })) }],
      unsaved: [{ path: "/v4/applications/process", bodies: questions.map((q) => ({ ...graph, version: "V0", inputs: inputs(q) })) }],
      parts: [{ path: `${base}/query`, bodies: queryBodies }, { path: "/v4/chat-completions", bodies: chatBodies }]
    }
    const runs = { recorded: [] as Array<LoadResult>, unsaved: [] as Array<LoadResult>, parts: [] as Array<LoadResult> }
    const order = ["parts", "unsaved", "recorded"] as const
    for (let round = 0; round < APP_ROUNDS; round++) {
      // alternate who goes first, so slow drifts of the machine's load fall on all three
      for (const name of round % 2 === 0 ? order : [...order].reverse()) {
        const result = await runLoad(built, pin, {
          url: kit.url,
          scenario: "sequence",
          connections: CONNECTIONS,
          seconds: APP_SECONDS,
          warmupSeconds: APP_WARMUP_SECONDS,
          key: main.key,
          accountId: main.accountId,
          ids: [],
          serverPid: kit.child.pid,
          sequence: measures[name]
        })
        if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${name}: ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`)
        runs[name].push(result)
        log(`round ${round + 1}/${APP_ROUNDS} ${name.padEnd(8)} ${rate(result.rps).padStart(7)} req/s  p50 ${ms(result.p50)} ms  p99 ${ms(result.p99)} ms  server CPU ${percent(result.serverCpuSeconds / result.seconds)}`)
      }
    }
    // per question: the parts' rate is of pairs (two requests a question), their p50 each step's
    const of = (name: keyof typeof runs, pick: (r: LoadResult) => number) => median(runs[name].map(pick))
    const partsRps = of("parts", (r) => r.rps / 2)
    const queryP50 = of("parts", (r) => r.steps![0]!.p50)
    const chatP50 = of("parts", (r) => r.steps![1]!.p50)
    const sum = queryP50 + chatP50
    const recorded = { rps: of("recorded", (r) => r.rps), p50: of("recorded", (r) => r.p50), p99: of("recorded", (r) => r.p99), perCpu: of("recorded", (r) => r.requests / r.serverCpuSeconds) }
    const unsaved = { rps: of("unsaved", (r) => r.rps), p50: of("unsaved", (r) => r.p50), p99: of("unsaved", (r) => r.p99), perCpu: of("unsaved", (r) => r.requests / r.serverCpuSeconds) }
    const partsPerCpu = of("parts", (r) => r.requests / 2 / r.serverCpuSeconds)
    const recordingCost = 1 - recorded.rps / unsaved.rps
    const others = median(Object.values(runs).flat().map((r) => Math.max(0, r.coreBusySeconds - r.serverCpuSeconds) / r.seconds))
    const targets = [
      ["process p50 ≤ the parts' p50 sum + 1 ms", `${ms(recorded.p50)} ms against ${ms(queryP50)} + ${ms(chatP50)} = ${ms(sum)} ms (${recorded.p50 - sum >= 0 ? "+" : ""}${ms(recorded.p50 - sum)} ms)`, recorded.p50 <= sum + 1],
      ["process throughput ≥ 0.8× the parts'", ratio(recorded.rps / partsRps), recorded.rps / partsRps >= 0.8],
      ["recording the interaction costs ≤ 10 % of throughput", percent(recordingCost), recordingCost <= 0.1]
    ] as const
    const text = [
      `Applications (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --applications\`, load average ${Os.loadavg().map((l) => l.toFixed(2)).join(" / ")}): a RAG variant over ${APP_CHUNKS.toLocaleString("en")} chunks (input → knowledge base, top_k ${APP_TOP_K} → prompt → built-in completion → output), ${CONNECTIONS} connections, ${APP_QUESTIONS} questions in turn, ${APP_ROUNDS} × ${APP_SECONDS} s each after ${APP_WARMUP_SECONDS} s of warm-up, alternating; medians. Setup (${APP_CHUNKS.toLocaleString("en")} chunks ingested): ${fmt(ingestSeconds, 1)} s. Others on the server's core: ${percent(others)}.`,
      "",
      "| measure | questions/s | p50 | p99 | questions per server CPU-s |",
      "|---|---:|---:|---:|---:|",
      `| the variant's process (recorded) | ${rate(recorded.rps)} | ${ms(recorded.p50)} ms | ${ms(recorded.p99)} ms | ${rate(recorded.perCpu)} |`,
      `| the same graph unsaved (\`POST /v4/applications/process\`, not recorded) | ${rate(unsaved.rps)} | ${ms(unsaved.p50)} ms | ${ms(unsaved.p99)} ms | ${rate(unsaved.perCpu)} |`,
      `| the parts, one after the other: KB query, then chat completion | ${rate(partsRps)} | ${ms(queryP50)} + ${ms(chatP50)} ms | — | ${rate(partsPerCpu)} |`,
      "",
      "| target | measured | met |",
      "|---|---:|:---:|",
      ...targets.map(([name, value, met]) => `| ${name} | ${value} | ${met ? "yes" : "**no**"} |`)
    ].join("\n")
    Fs.writeFileSync(Path.join(dirs.results, "applications.md"), text + "\n")
    // the raw runs (each with its window on the monotonic clock, for a CPU profile of the kit: BENCH_KIT_NODE_ARGS)
    Fs.writeFileSync(Path.join(dirs.results, "applications.json"), JSON.stringify({ runs, machine: machine() }, null, 2))
    process.stdout.write(text + "\n" + JSON.stringify({
      app_process_p50_ms: recorded.p50,
      app_parts_p50_sum_ms: sum,
      app_process_added_p50_ms: recorded.p50 - sum,
      app_process_rps_vs_parts: recorded.rps / partsRps,
      app_recording_cost: recordingCost,
      app_unsaved_rps_vs_parts: unsaved.rps / partsRps,
      app_process_per_cpu_vs_parts: recorded.perCpu / partsPerCpu
    }) + "\n")
  } finally {
    await stopServer(kit)
  }
}

/** Spans the search of `--data-plane` runs on (a seeded file, cached), and spans per ingested batch. */
const SPAN_ROWS = 1_000_000
const SPANS_PER_BATCH = 50
/** The file `--data-plane` uploads and downloads (bytes), and how many times each. */
const FILE_BYTES = 100_000_000
const FILE_TRANSFERS = 3
/** Rounds of the ingestion and of the search mix, and each one's seconds after its warm-up. */
const DATA_ROUNDS = 2
const DATA_SECONDS = 8
const DATA_WARMUP_SECONDS = 2

/**
 * The data plane (docs/spans.md, docs/files.md, docs/benchmarks.md "Data plane"): a kit in
 * `immediate` progression on a copy of the 100k-row file (no spans) takes `PUT /v5/spans/batch`
 * of `SPANS_PER_BATCH` new spans from `CONNECTIONS` connections (bench/spans.ts: the SDK tracer's
 * shape): spans/s; then a `FILE_BYTES` file uploaded (`POST /v5/files`, multipart) and downloaded
 * (`GET /v5/files/{id}/content`) from this process on loopback, `FILE_TRANSFERS` times each: MB/s
 * and the kit's RSS growth over its RSS before (sampled every 5 ms). Then a kit on the seeded
 * `SPAN_ROWS`-span file (read once first, so the OS caches it), one connection, four searches in
 * turn: the default (newest first), one trace's spans, a name + `ERROR`, the page after a random
 * span (cursor): each one's p50.
 */
const dataPlane = async (built: Built, pin: Pinning, main: Seeded) => {
  const spansSeed = await ensureSeeded(dirs.data, "spans", SPAN_ROWS, log)
  const store = Path.join(dirs.run, "data-plane-store")
  Fs.rmSync(store, { recursive: true, force: true })
  Fs.mkdirSync(store, { recursive: true })
  const others = (runs: ReadonlyArray<LoadResult>) => median(runs.map((r) => Math.max(0, r.coreBusySeconds - r.serverCpuSeconds) / r.seconds))
  const startedAt = new Date()
  const loadBefore = Os.loadavg()

  // 1. ingestion and files, on a kit with no spans
  const { server: kit } = await immediateKit("data-plane", built, pin, main, {
    PLATFORM_FILE_MAX_BYTES: String(2 * FILE_BYTES),
    PLATFORM_OBJECT_STORE_ROOT: store
  })
  const ingest: Array<LoadResult> = []
  const uploads: Array<{ mbPerS: number; rssGrowth: number }> = []
  const downloads: Array<{ mbPerS: number; rssGrowth: number }> = []
  try {
    await waitReady(kit)
    for (let round = 0; round < DATA_ROUNDS; round++) {
      const result = await runLoad(built, pin, {
        url: kit.url,
        scenario: "spans",
        connections: CONNECTIONS,
        seconds: DATA_SECONDS,
        warmupSeconds: DATA_WARMUP_SECONDS,
        key: main.key,
        accountId: main.accountId,
        ids: [],
        serverPid: kit.child.pid,
        spansPerBatch: SPANS_PER_BATCH
      })
      if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`spans: ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`)
      ingest.push(result)
      log(`round ${round + 1}/${DATA_ROUNDS} spans ${fmt(result.rps * SPANS_PER_BATCH).padStart(7)} spans/s  p50 ${ms(result.p50)} ms  p99 ${ms(result.p99)} ms  server CPU ${percent(result.serverCpuSeconds / result.seconds)}`)
    }

    /** Runs `transfer` while sampling the kit's RSS every 5 ms: MB/s and the growth over the RSS before. */
    const timed = async (transfer: () => Promise<void>) => {
      const before = memoryOf(kit).rss
      let peak = before
      const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(kit).rss)), 5)
      const started = performance.now()
      try {
        await transfer()
      } finally {
        clearInterval(sampler)
      }
      const seconds = (performance.now() - started) / 1000
      peak = Math.max(peak, memoryOf(kit).rss)
      return { mbPerS: FILE_BYTES / 1e6 / seconds, rssGrowth: peak - before }
    }
    const random = Crypto.randomBytes(FILE_BYTES)
    const boundary = "----platform-kit-bench-boundary"
    // a 1 MB upload and download first, not counted: the code of the path loaded, its buffers made
    for (let n = -1; n < FILE_TRANSFERS; n++) {
      const bytes = n < 0 ? random.subarray(0, 1_000_000) : random
      // other bytes each time: the account's store keeps identical bytes once (docs/files.md)
      bytes.writeInt32BE(n, 0)
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big-${n}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`)
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
      let id = ""
      uploads.push(await timed(() =>
        new Promise<void>((resolve, reject) => {
          const request = Http.request(`${kit.url}/v5/files?account_id=${main.accountId}`, {
            method: "POST",
            agent: false,
            headers: { "x-api-key": main.key, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(head.length + bytes.length + tail.length) }
          }, (response) => {
            let text = ""
            response.on("data", (chunk: Buffer) => (text += chunk.toString()))
            response.on("end", () => {
              if (response.statusCode !== 200) return reject(new Error(`upload answered ${response.statusCode}: ${text.slice(0, 300)}`))
              const file = JSON.parse(text) as { id: string; size: number }
              if (file.size !== bytes.length) return reject(new Error(`upload stored ${file.size} bytes`))
              id = file.id
              resolve()
            })
          })
          request.on("error", reject)
          request.write(head)
          // 1 MiB at a time, as a client streaming from a file does
          for (let at = 0; at < bytes.length; at += 1 << 20) request.write(bytes.subarray(at, at + (1 << 20)))
          request.end(tail)
        })
      ))
      downloads.push(await timed(() =>
        new Promise<void>((resolve, reject) => {
          Http.get(`${kit.url}/v5/files/${id}/content`, { headers: { "x-api-key": main.key }, agent: false }, (response) => {
            let received = 0
            response.on("data", (chunk: Buffer) => (received += chunk.length))
            response.on("end", () =>
              response.statusCode === 200 && received === bytes.length ? resolve() : reject(new Error(`download answered ${response.statusCode}, ${received} bytes`)))
          }).on("error", reject)
        })
      ))
      if (n < 0) {
        uploads.pop()
        downloads.pop()
        continue
      }
      const [up, down] = [uploads[n]!, downloads[n]!]
      log(`file ${n + 1}/${FILE_TRANSFERS}: upload ${fmt(up.mbPerS)} MB/s (RSS +${fmt(up.rssGrowth)} MiB), download ${fmt(down.mbPerS)} MB/s (RSS +${fmt(down.rssGrowth)} MiB)`)
    }
  } finally {
    await stopServer(kit)
  }

  // 2. search on the seeded spans: the file read once (into the OS's cache), then a kit on it
  const reader = Fs.openSync(spansSeed.file, "r")
  const chunk = Buffer.allocUnsafe(1 << 24)
  while (Fs.readSync(reader, chunk, 0, chunk.length, null) > 0);
  Fs.closeSync(reader)
  const searchKit = await startServer({ name: "kit-spans-1m", kind: "kit", command: [process.execPath, built.kit], database: spansSeed.file, pin })
  const searches: Array<LoadResult> = []
  const kinds = ["default (newest first)", "by trace_ids (one trace)", "names + statuses (a name, ERROR)", "page by cursor (starting_after)"] as const
  try {
    await waitReady(searchKit)
    const path = "/v5/spans/search"
    const traces = Array.from({ length: 50 }, (_, i) => traceIdOf(Math.floor(((i * 7919) % 50) * (SPAN_ROWS / SPANS_PER_TRACE / 50))))
    const sequence = [
      { path, bodies: [{}] },
      { path, bodies: traces.map((trace) => ({ trace_ids: [trace] })) },
      { path, bodies: SPAN_NAMES.map((name) => ({ names: [name], statuses: ["ERROR"] })) },
      { path, paths: spansSeed.sampleIds.slice(0, 200).map((id) => `${path}?starting_after=${id}`), bodies: [{}] }
    ]
    for (let round = 0; round < DATA_ROUNDS; round++) {
      const result = await runLoad(built, pin, {
        url: searchKit.url,
        scenario: "sequence",
        connections: PAGE_CONNECTIONS,
        seconds: DATA_SECONDS,
        warmupSeconds: DATA_WARMUP_SECONDS,
        key: spansSeed.key,
        accountId: spansSeed.accountId,
        ids: [],
        serverPid: searchKit.child.pid,
        sequence
      })
      if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`search: ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`)
      searches.push(result)
      log(`round ${round + 1}/${DATA_ROUNDS} search ${result.steps!.map((step, i) => `${kinds[i]!.split(" ")[0]} ${ms(step.p50)} ms`).join(", ")}`)
    }
  } finally {
    await stopServer(searchKit)
  }

  // 3. the kit's own tracer: GET by id and POST on a kit that records its spans (the default) and on one that does not
  const tracerRuns: Record<"on" | "off", { get: Array<LoadResult>; post: Array<LoadResult> }> = { on: { get: [], post: [] }, off: { get: [], post: [] } }
  const tracerKits = {
    on: (await immediateKit("tracer-on", built, pin, main, { PLATFORM_TRACE_RECORDING: "on" })).server,
    off: (await immediateKit("tracer-off", built, pin, main, { PLATFORM_TRACE_RECORDING: "off" })).server
  }
  try {
    for (const server of Object.values(tracerKits)) await waitReady(server)
    for (let round = 0; round < DATA_ROUNDS; round++) {
      for (const side of round % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const)) {
        for (const scenario of ["get", "post"] as const) {
          const server = tracerKits[side]
          const result = await runLoad(built, pin, {
            url: server.url,
            scenario,
            connections: CONNECTIONS,
            seconds: settings.seconds,
            warmupSeconds: settings.warmupSeconds,
            key: main.key,
            accountId: main.accountId,
            ids: main.sampleIds,
            serverPid: server.child.pid
          })
          await waitReady(server)
          tracerRuns[side][scenario].push(result)
          log(`round ${round + 1}/${DATA_ROUNDS} tracer ${side.padEnd(3)} ${scenario.padEnd(4)} ${rate(result.rps).padStart(7)} req/s  p50 ${ms(result.p50)} ms`)
        }
      }
    }
  } finally {
    for (const server of Object.values(tracerKits)) await stopServer(server)
  }
  const tracerCost = (scenario: "get" | "post") =>
    1 - median(tracerRuns.on[scenario].map((r) => r.rps)) / median(tracerRuns.off[scenario].map((r) => r.rps))
  const tracer = { get: tracerCost("get"), post: tracerCost("post") }

  const spansPerS = median(ingest.map((r) => r.rps * SPANS_PER_BATCH))
  const spansPerCpu = median(ingest.map((r) => (r.requests * SPANS_PER_BATCH) / r.serverCpuSeconds))
  const searchP50 = kinds.map((_, i) => median(searches.map((r) => r.steps![i]!.p50)))
  const searchP99 = kinds.map((_, i) => median(searches.map((r) => r.steps![i]!.p99)))
  const upload = { mbPerS: median(uploads.map((u) => u.mbPerS)), rss: Math.max(...uploads.map((u) => u.rssGrowth)) }
  const download = { mbPerS: median(downloads.map((u) => u.mbPerS)), rss: Math.max(...downloads.map((u) => u.rssGrowth)) }
  const targets = [
    [`spans ingested (PUT /v5/spans/batch of ${SPANS_PER_BATCH}, ${CONNECTIONS} connections) ≥ 20,000/s`, `${fmt(spansPerS)}/s`, spansPerS >= 20_000],
    ...kinds.map((kind, i) => [`search p50 at ${SPAN_ROWS.toLocaleString("en")} spans ≤ 10 ms: ${kind}`, `${ms(searchP50[i]!)} ms`, searchP50[i]! <= 10] as const),
    ["upload of 100 MB ≥ 200 MB/s", `${fmt(upload.mbPerS)} MB/s`, upload.mbPerS >= 200],
    ["download of 100 MB ≥ 200 MB/s", `${fmt(download.mbPerS)} MB/s`, download.mbPerS >= 200],
    ["RSS growth during an upload < 50 MB", `${fmt(upload.rss)} MiB (largest of ${FILE_TRANSFERS})`, upload.rss < 50],
    ["RSS growth during a download < 50 MB", `${fmt(download.rss)} MiB (largest of ${FILE_TRANSFERS})`, download.rss < 50],
    ["the kit's own tracer costs ≤ 5 % of GET by id and of POST throughput", `${percent(tracer.get)}, ${percent(tracer.post)}`, tracer.get <= 0.05 && tracer.post <= 0.05]
  ] as const
  const loads = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" / ")
  const text = [
    `Data plane (${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --data-plane\`, load average ${loads(loadBefore)} before, ${loads(Os.loadavg())} after; ${pin.note}).`,
    `Ingestion: ${DATA_ROUNDS} × ${DATA_SECONDS} s after ${DATA_WARMUP_SECONDS} s of warm-up, ${CONNECTIONS} connections, each request \`PUT /v5/spans/batch\` of ${SPANS_PER_BATCH} new spans (the SDK tracer's shape, bench/spans.ts) into a file with no spans: ${fmt(spansPerS)} spans/s (${fmt(spansPerS / SPANS_PER_BATCH)} batches/s, p50 ${ms(median(ingest.map((r) => r.p50)))} ms, p99 ${ms(median(ingest.map((r) => r.p99)))} ms), ${fmt(spansPerCpu)} spans per server CPU-s; others on the server's core ${percent(others(ingest))}.`,
    `Search: ${SPAN_ROWS.toLocaleString("en")} spans (${(SPAN_ROWS / SPANS_PER_TRACE).toLocaleString("en")} traces), \`limit\` 100, one connection, the four in turn, ${DATA_ROUNDS} × ${DATA_SECONDS} s; others on the server's core ${percent(others(searches))}.`,
    "",
    "| search | p50 | p99 |",
    "|---|---:|---:|",
    ...kinds.map((kind, i) => `| ${kind} | ${ms(searchP50[i]!)} ms | ${ms(searchP99[i]!)} ms |`),
    "",
    `Files: ${fmt(FILE_BYTES / 1e6)} MB uploaded (\`POST /v5/files\`, multipart) and downloaded (\`GET /v5/files/{id}/content\`) ${FILE_TRANSFERS} times each from the runner on loopback, after a 1 MB upload and download not counted (the path's code loaded); MB/s median, RSS growth the largest over the RSS before.`,
    "",
    "| transfer | MB/s (each) | RSS growth (each) |",
    "|---|---:|---:|",
    `| upload | ${uploads.map((u) => fmt(u.mbPerS)).join(", ")} | ${uploads.map((u) => `${fmt(u.rssGrowth)} MiB`).join(", ")} |`,
    `| download | ${downloads.map((u) => fmt(u.mbPerS)).join(", ")} | ${downloads.map((u) => `${fmt(u.rssGrowth)} MiB`).join(", ")} |`,
    "",
    "| target | measured | met |",
    "|---|---:|:---:|",
    ...targets.map(([name, value, met]) => `| ${name} | ${value} | ${met ? "yes" : "**no**"} |`),
    "",
    `The kit's own tracer (\`PLATFORM_TRACE_RECORDING\` on, the default, vs off; ${DATA_ROUNDS} rounds of ${settings.seconds} s each, alternating): GET by id costs ${percent(tracer.get)}, POST ${percent(tracer.post)} of throughput (target ≤ 5 %).`
  ].join("\n")
  Fs.writeFileSync(Path.join(dirs.results, "data-plane.md"), text + "\n")
  Fs.writeFileSync(Path.join(dirs.results, "data-plane.json"), JSON.stringify({ ingest, searches, uploads, downloads, machine: machine() }, null, 2))
  process.stdout.write(text + "\n" + JSON.stringify({
    spans_per_s: spansPerS,
    spans_per_cpu_s: spansPerCpu,
    span_search_default_p50_ms: searchP50[0],
    span_search_trace_p50_ms: searchP50[1],
    span_search_name_status_p50_ms: searchP50[2],
    span_search_cursor_p50_ms: searchP50[3],
    file_upload_mb_per_s: upload.mbPerS,
    file_download_mb_per_s: download.mbPerS,
    file_upload_rss_growth_mb: upload.rss,
    file_download_rss_growth_mb: download.rss,
    tracer_cost_get: tracer.get,
    tracer_cost_post: tracer.post,
    load_1m: loadBefore[0]
  }) + "\n")
}

/** Run schedules the `--agents` benchmark fires every second, how long fires are watched, and checkpoint writers. */
const SCHEDULES = 1_000
const FIRE_SECONDS = 10
const CHECKPOINT_WRITERS = 10
const CHECKPOINT_SECONDS = 5

/**
 * Agents at work (docs/agent-tasks.md "Run schedules", "Checkpoints"): a kit on a copy of the
 * 100k-row file, a sync agent's ACP server in this process (on the load's core) that answers each
 * `message/send` at once and notes when it came. GET by id is measured alone, then `SCHEDULES`
 * interval schedules of 1 s are created and, once they fire, GET by id again beside them; the
 * fires delivered in `FIRE_SECONDS` and each one's delay from its due second to its `message/send`.
 * Then `CHECKPOINT_WRITERS` LangGraph savers, one thread each, put a checkpoint and read it back
 * with get-tuple, one pair after another: pairs/s.
 */
const agents = async (built: Built, pin: Pinning, main: Seeded) => {
  const { database, server: kit } = await immediateKit("agents", built, pin, main)
  const call = caller(kit, main.key)
  const startedAt = new Date()
  const loadBefore = Os.loadavg()
  // the agent: delays (ms) from each fire's due second, by arrival time
  const arrivals: Array<{ at: number; delay: number }> = []
  const acp = Http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      const due = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)$/.exec(String(body.params?.task?.name ?? ""))
      const now = Date.now()
      if (body.method === "message/send" && due !== null) arrivals.push({ at: now, delay: now - Date.parse(due[1]!) })
      const line = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id: body.id, result, error: null }) + "\n"
      res.writeHead(200, { "content-type": "application/x-ndjson" })
      res.end(line({ type: "full", index: 0, content: { type: "text", author: "agent", content: "ok" } }))
    })
  })
  await new Promise<void>((resolve) => acp.listen(0, "127.0.0.1", resolve))
  const acpUrl = `http://127.0.0.1:${(acp.address() as Net.AddressInfo).port}`
  const getLoad = () =>
    runLoad(built, pin, {
      url: kit.url,
      scenario: "get",
      connections: CONNECTIONS,
      seconds: settings.seconds,
      warmupSeconds: 0,
      key: main.key,
      accountId: main.accountId,
      ids: main.sampleIds,
      serverPid: kit.child.pid
    })
  const percentile = (values: ReadonlyArray<number>, p: number) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
  }
  try {
    await waitReady(kit)
    const alone = await getLoad()
    const agent = await call("POST", "/agents/register", { name: "bench-scheduled", description: "bench", acp_url: acpUrl, acp_type: "sync" })
    const createStarted = performance.now()
    for (let from = 0; from < SCHEDULES; from += 50) {
      await Promise.all(Array.from({ length: Math.min(50, SCHEDULES - from) }, (_, i) =>
        call("POST", `/agents/${agent.id}/schedules`, { name: `every-second-${from + i}`, initial_input: { content: "tick" }, interval_seconds: 1 })))
    }
    const createSeconds = (performance.now() - createStarted) / 1000
    // two seconds of firing first (the fires of the creates' own seconds), then the measure
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const windowStart = Date.now()
    const beside = await getLoad()
    const rest = FIRE_SECONDS * 1000 - (Date.now() - windowStart)
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest))
    const windowEnd = Date.now()
    // every schedule paused: fires stop, the checkpoints are measured alone
    for (let from = 0; from < SCHEDULES; from += 50) {
      await Promise.all(Array.from({ length: Math.min(50, SCHEDULES - from) }, (_, i) =>
        call("POST", `/agents/${agent.id}/schedules/name/every-second-${from + i}/pause`, {})))
    }
    const measured = arrivals.filter((arrival) => arrival.at >= windowStart && arrival.at < windowEnd)
    const delays = measured.map((arrival) => arrival.delay)
    const fires = (() => {
      const db = new Database(database, { readonly: true, fileMustExist: true })
      try {
        return db.prepare(`SELECT status, COALESCE(reason, '') AS reason, COUNT(*) AS n FROM agent_run_schedule_fires
          WHERE scheduled_at >= ? AND scheduled_at < ? GROUP BY status, reason`).all(new Date(windowStart).toISOString(), new Date(windowEnd).toISOString()) as Array<{ status: string; reason: string; n: number }>
      } finally {
        db.close()
      }
    })()

    // checkpoints: one thread (a task) per writer, a new checkpoint each put, then the thread's latest read back
    const threads = await Promise.all(Array.from({ length: CHECKPOINT_WRITERS }, () =>
      call("POST", `/agents/${agent.id}/rpc`, { jsonrpc: "2.0", id: 1, method: "task/create", params: {} }).then((answer) => answer.result.id as string)))
    const blob = Buffer.from(JSON.stringify(["hello", "world"])).toString("base64")
    let pairs = 0
    const checkpointStarted = performance.now()
    const until = checkpointStarted + CHECKPOINT_SECONDS * 1000
    await Promise.all(threads.map(async (thread) => {
      for (let n = 1; performance.now() < until; n++) {
        const id = `1ef00000-0000-6000-8000-${String(n).padStart(12, "0")}`
        await call("POST", "/checkpoints/put", {
          thread_id: thread,
          checkpoint_id: id,
          parent_checkpoint_id: n === 1 ? null : `1ef00000-0000-6000-8000-${String(n - 1).padStart(12, "0")}`,
          checkpoint: { v: 4, id, ts: new Date().toISOString(), channel_values: { step: n }, channel_versions: { messages: String(n) }, versions_seen: {} },
          metadata: { source: "loop", step: n },
          blobs: [{ channel: "messages", version: String(n), type: "json", blob }]
        })
        const tuple = await call("POST", "/checkpoints/get-tuple", { thread_id: thread })
        if (tuple?.checkpoint_id !== id) throw new Error(`get-tuple answered ${tuple?.checkpoint_id}, not ${id}`)
        pairs++
      }
    }))
    const pairsPerS = pairs / ((performance.now() - checkpointStarted) / 1000)

    const seconds = (windowEnd - windowStart) / 1000
    const firesPerS = measured.length / seconds
    const p50 = percentile(delays, 0.5)
    const p99 = percentile(delays, 0.99)
    const getRatio = beside.rps / alone.rps
    const targets = [
      [`fires delivered with ${SCHEDULES} interval schedules of 1 s ≥ 1,000/s`, `${fmt(firesPerS)}/s`, firesPerS >= 1_000],
      ["fire to delivery p99 ≤ 250 ms", `${ms(p99)} ms (p50 ${ms(p50)} ms)`, p99 <= 250],
      ["GET by id beside the schedules ≥ 0.9× alone", `${beside.rps.toFixed(0)} / ${alone.rps.toFixed(0)} req/s = ${getRatio.toFixed(2)}×`, getRatio >= 0.9],
      [`checkpoints put + get-tuple (${CHECKPOINT_WRITERS} savers) ≥ 2,000 pairs/s`, `${fmt(pairsPerS)}/s`, pairsPerS >= 2_000]
    ] as const
    const loads = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" / ")
    const text = [
      `Agents (${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --agents\`, load average ${loads(loadBefore)} before, ${loads(Os.loadavg())} after; ${pin.note}).`,
      `${SCHEDULES} interval schedules of 1 s (created in ${createSeconds.toFixed(1)} s, 50 at a time) firing to a sync agent on loopback that answers at once; ${fmt(seconds, 1)} s watched: ${measured.length} fires delivered; fires stored in the window by status: ${fires.map((f) => `${f.status}${f.reason === "" ? "" : ` (${f.reason})`} ${f.n}`).join(", ")}. GET by id ${CONNECTIONS} connections, ${settings.seconds} s, alone then beside the fires. Checkpoints: ${CHECKPOINT_WRITERS} savers, ${CHECKPOINT_SECONDS} s, each a put (one blob) then a get-tuple of its thread.`,
      "",
      "| target | measured | met |",
      "|---|---:|:---:|",
      ...targets.map(([name, value, met]) => `| ${name} | ${value} | ${met ? "yes" : "**no**"} |`)
    ].join("\n")
    Fs.writeFileSync(Path.join(dirs.results, "agents.md"), text + "\n")
    process.stdout.write(text + "\n" + JSON.stringify({
      schedule_fires_per_s: firesPerS,
      schedule_fire_p50_ms: p50,
      schedule_fire_p99_ms: p99,
      get_beside_schedules_vs_alone: getRatio,
      checkpoint_pairs_per_s: pairsPerS,
      load_1m: loadBefore[0]
    }) + "\n")
  } finally {
    acp.close()
    await stopServer(kit)
  }
}

const execFileAsync = promisify(execFile)

/** Test cases of the `--evaluations-v4` benchmark, and its annotators. */
const EVAL_V4_CASES = 1_000
const ANNOTATORS = 10

/**
 * The v4 evaluation workflow (docs/evaluations.md "v4 evaluations"): a kit in `immediate`
 * progression; a dataset of `EVAL_V4_CASES` test cases published, a 3-node variant (input → the
 * built-in model → output) and an `llm_auto` config of one yes/no question; the time from a
 * builder evaluation's create to COMPLETED (the build and the built-in judge). Then a `human`
 * evaluation with one result per test case posted in one batch, and `ANNOTATORS` annotators (keys
 * of their own, made with the admin CLI) claiming and answering until no task is left: round trips
 * (claim + answer) per second, and whether any task was handed out twice.
 */
const evaluationsV4 = async (built: Built, pin: Pinning, main: Seeded) => {
  const { database, server: kit } = await immediateKit("evaluations-v4", built, pin, main)
  const call = caller(kit, main.key)
  const startedAt = new Date()
  const loadBefore = Os.loadavg()
  const account_id = main.accountId
  const node = (id: string, kind: string, configuration: Record<string, unknown> = {}) => ({
    id,
    application_node_schema_id: kind,
    configuration: Object.fromEntries(Object.entries(configuration).map(([key, value]) => [key, { value }]))
  })
  try {
    await waitReady(kit)
    const question = await call("POST", "/v4/questions", {
      account_id, type: "categorical", title: "Correct?", prompt: "Is the answer correct?", choices: [{ label: "Yes", value: "yes" }, { label: "No", value: "no" }]
    })
    const set = await call("POST", "/v4/question-sets", { account_id, name: "bench", question_ids: [question.id] })
    const judged = await call("POST", "/v4/evaluation-configs", { account_id, evaluation_type: "llm_auto", question_set_id: set.id })
    const human = await call("POST", "/v4/evaluation-configs", { account_id, evaluation_type: "human", question_set_id: set.id })
    const dataset = await call("POST", "/v4/evaluation-datasets", { account_id, name: "bench", schema_type: "GENERATION" })
    const testCases: Array<{ id: string }> = await call("POST", `/v4/evaluation-datasets/${dataset.id}/test-cases/batch`,
      Array.from({ length: EVAL_V4_CASES }, (_, i) => ({ test_case_data: { input: `question number ${i}`, expected_output: i % 3 === 0 ? "something else" : `question number ${i}` } })))
    await call("POST", `/v4/evaluation-datasets/${dataset.id}/publish`)
    const spec = await call("POST", "/v4/application-specs", { account_id, name: "bench", description: "bench" })
    const variant = await call("POST", "/v4/application-variants", {
      account_id, application_spec_id: spec.id, name: "v0", version: "V0",
      configuration: {
        nodes: [node("in", "text_input_schema"), node("llm", "completion_model_schema", { completion_model_id: "builtin" }), node("out", "text_output_schema")],
        edges: [
          { from_node: "in", from_field: "input-text", to_node: "llm", to_field: "prompt" },
          { from_node: "llm", from_field: "completion", to_node: "out", to_field: "output-text" }
        ]
      }
    })

    // 1. a builder evaluation, judged: create to COMPLETED
    const buildStarted = performance.now()
    const builder = await call("POST", "/v4/evaluations", {
      account_id, type: "builder", name: "bench build", description: "bench", application_spec_id: spec.id,
      application_variant_id: variant.id, evaluation_dataset_id: dataset.id, evaluation_config_id: judged.id
    })
    let evaluation = builder
    while (evaluation.status === "PENDING") {
      await new Promise((resolve) => setTimeout(resolve, 100))
      evaluation = await call("GET", `/v4/evaluations/${builder.id}`)
    }
    const buildSeconds = (performance.now() - buildStarted) / 1000
    if (evaluation.status !== "COMPLETED" || evaluation.completed_test_case_result_count !== EVAL_V4_CASES) {
      throw new Error(`the builder evaluation ended ${evaluation.status} with ${evaluation.completed_test_case_result_count} results`)
    }

    // 2. annotation: 1,000 tasks, ANNOTATORS people of their own keys
    const annotated = await call("POST", "/v4/evaluations", { account_id, name: "bench people", description: "bench", application_spec_id: spec.id, evaluation_config_id: human.id })
    await call("POST", `/v4/evaluations/${annotated.id}/test-case-results/batch`, testCases.map((testCase) => ({
      application_spec_id: spec.id, evaluation_dataset_version_num: "1", test_case_id: testCase.id, test_case_evaluation_data: { generation_output: "an answer" }
    })))
    // made without blocking this process's loop: a loop stopped for seconds (ten CLI starts on a
    // loaded machine) let the server close kept-alive sockets the client then reused; one at a time
    // (CLIs writing the SQLite file at once would find it locked)
    const keys: Array<string> = []
    for (let i = 0; i < ANNOTATORS; i++) {
      const { stdout } = await execFileAsync(Path.join(root, "node_modules/.bin/platform-kit"), ["keys", "create", "--account", account_id, "--identity-type", "user"], {
        env: { ...process.env, DATABASE_URL: `sqlite:${database}` }
      })
      keys.push(stdout.trim())
    }
    const handedOut = new Map<string, number>()
    let trips = 0
    const annotationStarted = performance.now()
    await Promise.all(keys.map(async (key) => {
      const as = caller(kit, key)
      for (;;) {
        const task = await as("POST", `/v4/evaluations/${annotated.id}/claim-task`, {})
        if (task === null) return
        handedOut.set(task.id, (handedOut.get(task.id) ?? 0) + 1)
        await as("PATCH", `/v4/evaluations/${annotated.id}/test-case-results/${task.task_entity_id}`, { result: { [question.id]: "yes" }, time_spent_labeling_s: 1 })
        trips++
      }
    }))
    const annotationSeconds = (performance.now() - annotationStarted) / 1000
    const tripsPerS = trips / annotationSeconds
    const twice = [...handedOut.values()].filter((n) => n > 1).length
    const done = await call("GET", `/v4/evaluations/${annotated.id}`)

    const targets = [
      [`a builder evaluation of ${EVAL_V4_CASES.toLocaleString("en")} test cases (3 nodes, built-in model and judge) COMPLETED within 5 s`, `${buildSeconds.toFixed(2)} s`, buildSeconds <= 5],
      [`annotation round trips (claim + answer) from ${ANNOTATORS} annotators ≥ 500/s`, `${fmt(tripsPerS)}/s (${trips} in ${annotationSeconds.toFixed(2)} s)`, tripsPerS >= 500],
      ["no task handed out twice; the evaluation COMPLETED", `${twice} twice; ${done.status}, ${done.completed_test_case_result_count} completed`, twice === 0 && done.status === "COMPLETED"]
    ] as const
    const loads = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" / ")
    const text = [
      `Evaluations v4 (${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench -- --evaluations-v4\`, load average ${loads(loadBefore)} before, ${loads(Os.loadavg())} after; ${pin.note}).`,
      "",
      "| target | measured | met |",
      "|---|---:|:---:|",
      ...targets.map(([name, value, met]) => `| ${name} | ${value} | ${met ? "yes" : "**no**"} |`)
    ].join("\n")
    Fs.writeFileSync(Path.join(dirs.results, "evaluations-v4.md"), text + "\n")
    process.stdout.write(text + "\n" + JSON.stringify({
      evaluation_v4_build_seconds: buildSeconds,
      annotation_trips_per_s: tripsPerS,
      annotation_tasks_twice: twice,
      load_1m: loadBefore[0]
    }) + "\n")
  } finally {
    await stopServer(kit)
  }
}

/** The built-in embedding function's throughput on texts of 50 words (warm: a first pass untimed). */
const builtinEmbeddingsRate = () => {
  const words = 50
  const vocabulary = "the a model answers questions about documents retrieval embedding vector chunk index query platform kit deploy server".split(" ")
  const texts = Array.from({ length: 5_000 }, (_, i) =>
    Array.from({ length: words }, (_, j) => vocabulary[(i * 7 + j * 13) % vocabulary.length]! + (j % 5 === 0 ? String(i % 100) : "")).join(" "))
  for (const text of texts.slice(0, 500)) embed(text)
  const started = performance.now()
  for (const text of texts) embed(text)
  const seconds = (performance.now() - started) / 1000
  return { texts: texts.length, words, perSecond: texts.length / seconds }
}

// ---------------------------------------------------------------------------------------------
// the benchmark

const main = async () => {
  const startedAt = new Date()
  const code = revision()
  const before = machine()
  const pin = pinning()
  log(`platform-kit benchmark (${mode}); ${pin.note}; load average ${before.load.map((l) => l.toFixed(2)).join(" ")}`)
  const built = await build(dirs.build)
  log("build: kit, fastify peer, ceiling and load generator bundled under .bench/build")

  const mainSeed = await ensureSeeded(dirs.data, "model_groups", GET_ROWS, log)
  if (profileHealth) return profileGet(built, pin, mainSeed, "health")
  if (profilePost) return profileGet(built, pin, mainSeed, "post")
  if (profileOnly) return profileGet(built, pin, mainSeed)
  if (profileStart) return profileColdStart(built, pin, mainSeed)
  if (coldOnly) return coldStartsOnly(built, pin, mainSeed)
  if (lifecyclesOnly) return lifecycles(built, pin, mainSeed)
  if (executionOnly) return execution(built, pin, mainSeed)
  if (evaluationsOnly) return evaluations(built, pin, mainSeed)
  if (knowledgeBasesOnly) return knowledgeBases(built, pin, mainSeed)
  if (streamsOnly) return taskStreams(built, pin, mainSeed)
  if (applicationsOnly) return applications(built, pin, mainSeed)
  if (dataPlaneOnly) return dataPlane(built, pin, mainSeed)
  if (agentsOnly) return agents(built, pin, mainSeed)
  if (evaluationsV4Only) return evaluationsV4(built, pin, mainSeed)
  const smallSeed = await ensureSeeded(dirs.data, "agent_runtime_deployments", SMALL_ROWS, log)
  const largeSeed = await ensureSeeded(dirs.data, "agent_runtime_deployments", LARGE_ROWS, log)

  // private copies of the file the writes go to; the cursor files are only read
  const kitMain = copySeeded(mainSeed, Path.join(dirs.run, "kit-main.db"))
  const fastifyMain = copySeeded(mainSeed, Path.join(dirs.run, "fastify-main.db"))

  const kitCommand = [process.execPath, built.kit]
  const fastifyCommand = [process.execPath, built.fastify]
  const ceilingCommand = [process.execPath, built.ceiling]

  const servers = {
    kit: await startServer({ name: "kit-main", kind: "kit", command: kitCommand, database: kitMain.file, pin }),
    fastify: await startServer({ name: "fastify-main", kind: "fastify", command: fastifyCommand, database: fastifyMain.file, pin }),
    ceiling: await startServer({ name: "ceiling", kind: "ceiling", command: ceilingCommand, pin }),
    kitSmall: await startServer({ name: "kit-1k", kind: "kit", command: kitCommand, database: smallSeed.file, pin }),
    fastifySmall: await startServer({ name: "fastify-1k", kind: "fastify", command: fastifyCommand, database: smallSeed.file, pin }),
    kitLarge: await startServer({ name: "kit-1m", kind: "kit", command: kitCommand, database: largeSeed.file, pin }),
    fastifyLarge: await startServer({ name: "fastify-1m", kind: "fastify", command: fastifyCommand, database: largeSeed.file, pin })
  }
  try {
    for (const server of Object.values(servers)) await waitReady(server)
    await checkSameJson(servers, mainSeed, largeSeed)

    const measured = new Map<string, Measured>()
    const record = (scenario: string, server: Running, result: LoadResult) => {
      const key = `${scenario}/${server.kind}`
      const entry = measured.get(key) ?? { scenario, server: server.kind, runs: [], rss: NaN }
      entry.runs.push(result)
      entry.rss = memoryOf(server).rss
      measured.set(key, entry)
    }
    const plan: ReadonlyArray<{
      readonly scenario: string
      readonly load: Scenario
      readonly servers: ReadonlyArray<Running>
      readonly seed: Seeded
      readonly connections: number
    }> = [
      { scenario: "health", load: "health", servers: [servers.kit, servers.fastify], seed: mainSeed, connections: CONNECTIONS },
      { scenario: "get", load: "get", servers: [servers.kit, servers.fastify, servers.ceiling], seed: mainSeed, connections: CONNECTIONS },
      { scenario: "post", load: "post", servers: [servers.kit, servers.fastify], seed: mainSeed, connections: CONNECTIONS },
      { scenario: "list", load: "list", servers: [servers.kit, servers.fastify], seed: mainSeed, connections: PAGE_CONNECTIONS },
      { scenario: "mixed", load: "mixed", servers: [servers.kit, servers.fastify], seed: mainSeed, connections: CONNECTIONS },
      { scenario: "cursor-1k", load: "cursor", servers: [servers.kitSmall, servers.fastifySmall], seed: smallSeed, connections: PAGE_CONNECTIONS },
      { scenario: "cursor-1m", load: "cursor", servers: [servers.kitLarge, servers.fastifyLarge], seed: largeSeed, connections: PAGE_CONNECTIONS }
    ]
    for (let round = 0; round < settings.rounds; round++) {
      for (const step of plan) {
        // alternate who goes first, so slow drifts of the machine's load fall on both
        const order = round % 2 === 0 ? step.servers : [...step.servers].reverse()
        for (const server of order) {
          const result = await runLoad(built, pin, {
            url: server.url,
            scenario: server.kind === "ceiling" ? "ceiling" : step.load,
            connections: step.connections,
            seconds: settings.seconds,
            warmupSeconds: settings.warmupSeconds,
            key: step.seed.key,
            accountId: step.seed.accountId,
            ids: step.seed.sampleIds,
            serverPid: server.child.pid
          })
          record(step.scenario, server, result)
          // requests still queued in the server when the run stopped must not spill into the next one
          await waitReady(server)
          log(
            `round ${round + 1}/${settings.rounds} ${step.scenario.padEnd(9)} ${server.name.padEnd(12)} ${rate(result.rps).padStart(7)} req/s  p50 ${ms(result.p50)} ms  p99 ${ms(result.p99)} ms  server CPU ${percent(result.serverCpuSeconds / result.seconds)}, others on its core ${percent(Math.max(0, result.coreBusySeconds - result.serverCpuSeconds) / result.seconds)}${
              result.non2xx + result.errors + result.timeouts > 0 ? `  (${result.non2xx} non-2xx, ${result.errors} errors: ${JSON.stringify(result.statusCodes)})` : ""
            }`
          )
        }
      }
    }
    const endOfLarge = { kit: memoryOf(servers.kitLarge), fastify: memoryOf(servers.fastifyLarge) }
    for (const server of Object.values(servers)) await stopServer(server)

    // cold start: a fresh process on the (already migrated) 100k-row file, to the first 200 of a GET by id
    const coldPath = `/v4/model-groups/${mainSeed.sampleIds[0]}`
    const cold: Record<string, Array<number>> = { kit: [], fastify: [], ceiling: [], "kit (tsx, npm start)": [] }
    for (let i = 0; i < settings.coldStarts; i++) {
      cold.kit!.push(await coldStart(kitCommand, "kit", kitMain.file, coldPath, pin))
      cold.fastify!.push(await coldStart(fastifyCommand, "fastify", fastifyMain.file, coldPath, pin))
      cold.ceiling!.push(await coldStart(ceilingCommand, "ceiling", "", coldPath, pin))
    }
    // what `npm start` does: TypeScript through tsx (its transform cache warmed by the first start)
    if (!quick) {
      const tsxCommand = [process.execPath, Path.join(root, "packages/server/src/bin.ts")]
      for (let i = 0; i < 3; i++) cold["kit (tsx, npm start)"]!.push(await coldStart(tsxCommand, "kit", kitMain.file, coldPath, pin, ["--import", "tsx"]))
      cold["kit (tsx, npm start)"]!.shift()
    } else {
      delete cold["kit (tsx, npm start)"]
    }

    const sql = sqlCosts(mainSeed, smallSeed, largeSeed)
    report({ startedAt, code, before, after: machine(), pin, measured, cold, endOfLarge, sql })
    // the engine under a burst of lifecycles (not in --quick: it takes half a minute)
    if (!quick) await lifecycles(built, pin, mainSeed)
    // model execution through the kit vs direct (not in --quick either)
    if (!quick) await execution(built, pin, mainSeed)
    // evaluations that run (not in --quick either)
    if (!quick) await evaluations(built, pin, mainSeed)
    // knowledge bases that ingest and answer (not in --quick either)
    if (!quick) await knowledgeBases(built, pin, mainSeed)
    // applications that run: a RAG variant against its parts called directly (not in --quick either)
    if (!quick) await applications(built, pin, mainSeed)
    // the data plane: spans ingested and searched, a 100 MB file up and down (not in --quick either)
    if (!quick) await dataPlane(built, pin, mainSeed)
  } finally {
    for (const server of Object.values(servers)) await stopServer(server)
  }
}

/** The kit and the peer must answer the same bytes for what is measured. */
const checkSameJson = async (
  servers: { readonly kit: Running; readonly fastify: Running; readonly kitLarge: Running; readonly fastifyLarge: Running },
  mainSeed: Seeded,
  largeSeed: Seeded
) => {
  const body = (url: string) =>
    new Promise<string>((resolve, reject) => {
      Http.get(url, { headers: { "x-api-key": BENCH_KEY }, agent: false }, (response) => {
        let text = ""
        response.on("data", (chunk: Buffer) => (text += chunk.toString()))
        response.on("end", () => (response.statusCode === 200 ? resolve(text) : reject(new Error(`${url}: ${response.statusCode} ${text}`))))
      }).on("error", reject)
    })
  const pairs: ReadonlyArray<readonly [Running, Running, string]> = [
    [servers.kit, servers.fastify, `/v4/model-groups/${mainSeed.sampleIds[0]}`],
    [servers.kit, servers.fastify, "/v4/model-groups?limit=100"],
    [servers.kitLarge, servers.fastifyLarge, `/v5/agent-runtime/deployments?limit=100&starting_after=${largeSeed.sampleIds[0]}`]
  ]
  for (const [a, b, path] of pairs) {
    const [x, y] = await Promise.all([body(a.url + path), body(b.url + path)])
    if (x !== y) throw new Error(`the kit and the Fastify peer answer different JSON for ${path}`)
  }
  log("check: the kit and the Fastify peer answer byte-identical JSON for GET by id, the v4 page and the v5 cursor page")
}

// ---------------------------------------------------------------------------------------------
// the report

const SCENARIOS: Record<string, string> = {
  health: "GET /health (no key, no database: the stack's floor)",
  get: `GET /v4/model-groups/{id} (${GET_ROWS.toLocaleString("en")} rows)`,
  post: "POST /v4/model-groups",
  list: `GET /v4/model-groups?limit=100 (${GET_ROWS.toLocaleString("en")} rows, 1 connection)`,
  mixed: "mixed 90 % GET by id / 10 % POST",
  "cursor-1k": `GET /v5/agent-runtime/deployments?limit=100&starting_after=… (${SMALL_ROWS.toLocaleString("en")} rows, 1 connection)`,
  "cursor-1m": `same, ${LARGE_ROWS.toLocaleString("en")} rows (1 connection)`
}

const report = (input: {
  readonly startedAt: Date
  /** The commit measured (read when the run started). */
  readonly code: string
  readonly before: ReturnType<typeof machine>
  readonly after: ReturnType<typeof machine>
  readonly pin: Pinning
  readonly measured: Map<string, Measured>
  readonly cold: Record<string, Array<number>>
  readonly endOfLarge: { readonly kit: { rss: number; peak: number }; readonly fastify: { rss: number; peak: number } }
  readonly sql: Record<string, number>
}) => {
  const get = (scenario: string, server: ServerKind) => {
    const m = input.measured.get(`${scenario}/${server}`)
    return m === undefined ? undefined : { ...summary(m), rss: m.rss }
  }
  const ceiling = get("get", "ceiling")!.rps
  const rows: Array<string> = [
    "| scenario | server | req/s | p50 ms | p99 ms | RSS MiB | server CPU | others on its core | req per CPU-s | × Fastify (req/s) | × Fastify (per CPU-s) | × ceiling (req/s) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  ]
  for (const scenario of Object.keys(SCENARIOS)) {
    const peer = get(scenario, "fastify")
    for (const server of ["kit", "fastify", "ceiling"] as const) {
      const s = get(scenario, server)
      if (s === undefined) continue
      const bad = s.bad > 0 ? ` (${s.bad} failed of ${s.requests})` : ""
      rows.push(
        `| ${server === "kit" ? SCENARIOS[scenario] : ""} | ${server} | ${rate(s.rps)}${bad} | ${ms(s.p50)} | ${ms(s.p99)} | ${fmt(s.rss)} | ${
          percent(s.cpuShare)
        } | ${percent(s.othersShare)} | ${rate(s.perCpu)} | ${server === "ceiling" || peer === undefined ? "" : ratio(s.rps / peer.rps)} | ${
          server === "ceiling" || peer === undefined ? "" : ratio(s.perCpu / peer.perCpu)
        } | ${ratio(s.rps / ceiling)} |`
      )
    }
  }
  const kit = (scenario: string) => get(scenario, "kit")!
  const peer = (scenario: string) => get(scenario, "fastify")!
  const coldMedian = (name: string) => median(input.cold[name] ?? [])
  const ratios = {
    get_vs_fastify: kit("get").rps / peer("get").rps,
    post_vs_fastify: kit("post").rps / peer("post").rps,
    post_p99_vs_fastify: kit("post").p99 / peer("post").p99,
    list_vs_fastify: kit("list").rps / peer("list").rps,
    mixed_vs_fastify: kit("mixed").rps / peer("mixed").rps,
    cursor_1m_vs_1k: kit("cursor-1m").p50 / kit("cursor-1k").p50,
    fastify_cursor_1m_vs_1k: peer("cursor-1m").p50 / peer("cursor-1k").p50,
    get_vs_fastify_cpu: kit("get").perCpu / peer("get").perCpu,
    post_vs_fastify_cpu: kit("post").perCpu / peer("post").perCpu,
    mixed_vs_fastify_cpu: kit("mixed").perCpu / peer("mixed").perCpu,
    get_vs_ceiling: kit("get").rps / ceiling,
    fastify_get_vs_ceiling: peer("get").rps / ceiling,
    cold_start_ms: coldMedian("kit"),
    fastify_cold_start_ms: coldMedian("fastify"),
    rss_mb: input.endOfLarge.kit.rss,
    fastify_rss_mb: input.endOfLarge.fastify.rss,
    /** How much of the server core other processes took during the runs (median), and the load. */
    others_on_server_core: median([...input.measured.values()].flatMap((m) => m.runs.map((r) => Math.max(0, r.coreBusySeconds - r.serverCpuSeconds) / r.seconds))),
    load_1m: input.before.load[0]!
  }
  const targets = [
    ["GET by id ≥ 0.5× Fastify", ratio(ratios.get_vs_fastify), ratios.get_vs_fastify >= 0.5],
    ["POST ≥ 0.8× Fastify", ratio(ratios.post_vs_fastify), ratios.post_vs_fastify >= 0.8],
    ["POST p99 ≤ 2× Fastify's", ratio(ratios.post_p99_vs_fastify), ratios.post_p99_vs_fastify <= 2],
    ["v5 cursor page: 1M rows ≤ 1.5× 1k rows (p50)", ratio(ratios.cursor_1m_vs_1k), ratios.cursor_1m_vs_1k <= 1.5],
    ["cold start < 1 s", `${fmt(ratios.cold_start_ms)} ms`, ratios.cold_start_ms < 1000],
    ["RSS < 200 MB at the end of the 1M-row run", `${fmt(ratios.rss_mb)} MiB`, ratios.rss_mb < 200]
  ] as const
  const coldRows = Object.entries(input.cold).map(([name, values]) =>
    `| ${name} | ${fmt(median(values))} | ${fmt(Math.min(...values))} | ${fmt(Math.max(...values))} | ${values.length} |`
  )
  const loads = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" / ")
  const markdown = [
    `### ${input.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench${quick ? " -- --quick" : ""}\``,
    "",
    `Code: ${input.code}.`,
    `Machine: ${input.before.cpu}, ${input.before.memory}, ${input.before.os}, Node ${input.before.node}. ${input.pin.note}.`,
    `Load average (1 / 5 / 15 min) before: ${loads(input.before.load)}; after: ${loads(input.after.load)}.`,
    `Other processes on the server's core during the runs (median of all runs): ${percent(ratios.others_on_server_core)} of it; hypervisor steal: ${
      percent(median([...input.measured.values()].flatMap((m) => m.runs.map((r) => r.coreStealSeconds / r.seconds))))
    }. \"server CPU\" is the share of wall time the server process ran; \"req per CPU-s\" divides requests by that CPU time, which stays comparable when other processes share the core.`,
    `Runs: ${settings.rounds} round(s) × ${settings.seconds} s per scenario and server after ${settings.warmupSeconds} s of warm-up, ${CONNECTIONS} connections (list and cursor pages: ${PAGE_CONNECTIONS}); medians of the rounds. RSS: after the server's last run of that scenario.`,
    "",
    ...rows,
    "",
    "| target | measured | met |",
    "|---|---:|:---:|",
    ...targets.map(([name, value, met]) => `| ${name} | ${value} | ${met ? "yes" : "**no**"} |`),
    "",
    `RSS at the end of the 1M-row run: kit ${fmt(input.endOfLarge.kit.rss)} MiB (peak ${fmt(input.endOfLarge.kit.peak)}), Fastify ${fmt(input.endOfLarge.fastify.rss)} MiB (peak ${fmt(input.endOfLarge.fastify.peak)}).`,
    "",
    "Cold start: from spawning the process to the first 200 of an authenticated GET by id, on the migrated 100k-row file (ms).",
    "",
    "| server | median | min | max | starts |",
    "|---|---:|---:|---:|---:|",
    ...coldRows,
    "",
    `The list routes' SQL alone (better-sqlite3, no HTTP; ${GET_ROWS.toLocaleString("en")}-row file for v4), median ms:`,
    "",
    "| statement | ms |",
    "|---|---:|",
    ...Object.entries(input.sql).map(([name, value]) => `| ${name} | ${ms(value)} |`)
  ].join("\n")
  const json = JSON.stringify(Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, Number(v.toFixed(3))])))
  const stamp = input.startedAt.toISOString().replace(/[:.]/g, "-")
  Fs.writeFileSync(Path.join(dirs.results, `${mode}-${stamp}.md`), markdown + "\n")
  Fs.writeFileSync(Path.join(dirs.results, `latest-${mode}.md`), markdown + "\n")
  Fs.writeFileSync(
    Path.join(dirs.results, `${mode}-${stamp}.json`),
    JSON.stringify({ mode, settings, ratios, measured: [...input.measured.values()], cold: input.cold, sql: input.sql, machine: { before: input.before, after: input.after } }, null, 2)
  )
  process.stdout.write(`${markdown}\n\nwritten to .bench/results/latest-${mode}.md\n${json}\n`)
}

await main()
