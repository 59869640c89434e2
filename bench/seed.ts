/**
 * Seeding for the benchmark: SQLite files in the kit's own format.
 *
 * The schema comes from the kit's migrations (`databaseLayer`), the API key from the kit's
 * `Accounts.provisionUser`, and every stored document from the kit's Schema classes (encoded the
 * way the repositories encode them). Only the bulk INSERT bypasses the repositories, so that a
 * million rows take seconds: one prepared statement, batched in transactions, the table's indexes
 * dropped during the load and recreated from their own DDL afterwards. A sample of rows is then
 * read back through the kit's repositories, which must decode them.
 *
 * Seeded files are cached under `.bench/data`, keyed by a fingerprint of what decides their content:
 * the DDL the kit's migrations make today, this file, the Schemas of the seeded resources and their
 * form (`formOf`).
 */
import { SqlClient } from "@effect/sql"
import { AgentRuntimeDeployment, AgentRuntimeDeployEvent, Identity, ModelGroup, Span } from "@platform-kit/schema"
import { Accounts, databaseLayer, formOf, Ids } from "@platform-kit/server"
import Database from "better-sqlite3"
import { Effect, Layer, Schema } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { AgentRuntimeRepo } from "../packages/server/src/agent-runtime/AgentRuntimeRepo.js"
import { ModelGroupsRepo } from "../packages/server/src/model-groups/ModelGroupsRepo.js"
import { durationUs, instantOf } from "../packages/server/src/spans/instants.js"
import { SpansRepo } from "../packages/server/src/spans/SpansRepo.js"
import { SPANS_PER_TRACE, spanItem } from "./spans.js"

/** The API key every seeded database knows (a `user` in one account). */
export const BENCH_KEY = "pk_benchmarkbenchmarkbenchmarkbenc"

export type SeedKind = "model_groups" | "agent_runtime_deployments" | "spans"

export interface Seeded {
  readonly kind: SeedKind
  readonly file: string
  readonly rows: number
  readonly key: string
  readonly accountId: string
  readonly identityId: string
  /** Ids to request: random rows, each with at least 100 older rows after it (a full next page). */
  readonly sampleIds: ReadonlyArray<string>
  readonly seconds: number
  readonly fingerprint: string
}

const root = Path.resolve(import.meta.dirname, "..")

/** The DDL the kit's migrations make today (on an in-memory database): what a seeded file must match. */
const migratedSchema = () =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name`
      return rows.map((row) => row.sql).join(";\n")
    }).pipe(Effect.provide(databaseLayer("sqlite::memory:")))
  )

const fingerprintOf = async (kind: SeedKind, rows: number) => {
  const hash = Crypto.createHash("sha256").update(`${kind}:${rows}`).update(await migratedSchema())
  // the form the rows are written in: the repository's, however it is worked out today
  hash.update(formOf(kind === "model_groups" ? ModelGroup : kind === "spans" ? Span : AgentRuntimeDeployment))
  const inputs = [
    "bench/seed.ts",
    kind === "model_groups"
      ? "packages/schema/src/model-groups.ts"
      : kind === "spans"
      ? "packages/schema/src/spans.ts"
      : "packages/schema/src/agent-runtime.ts",
    "packages/schema/src/common.ts",
    ...(kind === "spans" ? ["bench/spans.ts", "packages/server/src/spans/SpansRepo.ts"] : [])
  ]
  for (const input of inputs) hash.update(Fs.readFileSync(Path.join(root, input)))
  return hash.digest("hex").slice(0, 16)
}

const removeDatabase = (file: string) => {
  for (const suffix of ["", "-wal", "-shm"]) Fs.rmSync(file + suffix, { force: true })
}

/** The kit's migrations and one provisioned user with `BENCH_KEY`. */
const migrateAndProvision = (file: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const accounts = yield* Accounts
      return yield* accounts.provisionUser({ key: BENCH_KEY })
    }).pipe(
      Effect.provide(Accounts.Default.pipe(Layer.provideMerge(Ids.Live), Layer.provideMerge(databaseLayer(`sqlite:${file}`))))
    )
  )

/** Reads sample rows back through the kit's repositories: they must decode to what was written. */
const verify = (seeded: Omit<Seeded, "seconds" | "fingerprint">) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const accountIds = [seeded.accountId]
      const ids = [seeded.sampleIds[0]!, seeded.sampleIds[seeded.sampleIds.length - 1]!]
      if (seeded.kind === "model_groups") {
        const repo = yield* ModelGroupsRepo
        for (const id of ids) yield* repo.get(id, accountIds)
        const page = yield* repo.page({ accountIds, page: 2, limit: 100 })
        if (page.items.length !== Math.min(100, Math.max(0, seeded.rows - 100)) || page.total_item_count !== seeded.rows) {
          return yield* Effect.dieMessage(`model_groups page check failed: ${page.items.length} items, total ${page.total_item_count}`)
        }
      } else if (seeded.kind === "spans") {
        const repo = yield* SpansRepo
        for (const id of ids) yield* repo.get(id, accountIds)
        const page = yield* repo.search({ accountIds, filters: {}, limit: 100, sortOrder: "desc", startingAfter: ids[0] })
        if (page.items.length !== 100) return yield* Effect.dieMessage(`spans search check failed: ${page.items.length} items`)
        const trace = yield* repo.search({ accountIds, filters: { trace_ids: [traceIdOf(0)] }, limit: 100, sortOrder: "desc" })
        if (trace.items.length !== SPANS_PER_TRACE) return yield* Effect.dieMessage(`spans trace check failed: ${trace.items.length} items`)
      } else {
        const repo = yield* AgentRuntimeRepo
        for (const id of ids) yield* repo.get(id, accountIds)
        const page = yield* repo.cursorPage({ accountIds, limit: 100, sortBy: "created_at", sortOrder: "desc", startingAfter: ids[0] })
        if (page.items.length !== 100 || page.total !== seeded.rows) {
          return yield* Effect.dieMessage(`cursor page check failed: ${page.items.length} items, total ${page.total}`)
        }
      }
      const [{ n }] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql(seeded.kind)}`
      if (Number(n) !== seeded.rows) return yield* Effect.dieMessage(`expected ${seeded.rows} rows, found ${n}`)
    }).pipe(
      Effect.provide(
        Layer.mergeAll(ModelGroupsRepo.Default, AgentRuntimeRepo.Default, SpansRepo.Default).pipe(
          Layer.provideMerge(databaseLayer(`sqlite:${seeded.file}`))
        )
      )
    )
  )

const BATCH = 50_000
const BASE_TIME = Date.parse("2026-01-01T00:00:00.000Z")

/** Row `i`: the indexed columns and the document, as the repository's `record` would write them. */
type Row = readonly [id: string, ...columns: Array<string | number | null>]

const modelGroupRows = (accountId: string, identityId: string) => {
  const encode = Schema.encodeSync(ModelGroup)
  const template = encode(
    new ModelGroup({
      id: Crypto.randomUUID(),
      name: "template",
      description: "template",
      account_id: accountId,
      created_by_user_id: identityId,
      created_by_identity_type: "user",
      created_at: new Date(BASE_TIME).toISOString()
    })
  )
  return {
    columns: ["id", "account_id", "created_at"],
    row: (i: number): { readonly values: Row; readonly doc: unknown } => {
      const id = Crypto.randomUUID()
      const created_at = new Date(BASE_TIME + i * 1000).toISOString()
      const doc = { ...template, id, name: `model group ${i}`, description: i % 3 === 0 ? null : `group number ${i} of the benchmark`, created_at }
      return { values: [id, accountId, created_at], doc }
    },
    check: (doc: unknown) => encode(Schema.decodeUnknownSync(ModelGroup)(doc)),
    form: formOf(ModelGroup)
  }
}

const deploymentRows = (accountId: string, identityId: string) => {
  const encode = Schema.encodeSync(AgentRuntimeDeployment)
  const created = new Date(BASE_TIME).toISOString()
  const template = encode(
    new AgentRuntimeDeployment({
      id: Crypto.randomUUID(),
      namespace: "agents",
      manifest_file: null,
      environment_config: null,
      status: "PENDING",
      account_id: accountId,
      build_id: "build",
      agent_name: "agent",
      helm_release_name: null,
      preview_label: null,
      created_at: created,
      expires_at: null,
      created_by: new Identity({ id: identityId, type: "user", object: "identity" }),
      object: "agent_runtime_cloud_deploy",
      deploy_events: [new AgentRuntimeDeployEvent({ type: "Normal", reason: "Created", message: "template", timestamp: created })]
    })
  )
  return {
    columns: ["id", "account_id", "created_at", "build_id", "agent_name", "preview_label"],
    row: (i: number): { readonly values: Row; readonly doc: unknown } => {
      const id = Crypto.randomUUID()
      const created_at = new Date(BASE_TIME + i * 1000).toISOString()
      const build_id = `build-${i % 1000}`
      const agent_name = `agent-${i % 20}`
      const preview_label = i % 4 === 0 ? `preview-${i % 7}` : null
      const doc = {
        ...template,
        id,
        build_id,
        agent_name,
        preview_label,
        created_at,
        deploy_events: [{
          type: "Normal",
          reason: "Created",
          message: `Deployment of build ${build_id} (agent ${agent_name}) created`,
          timestamp: created_at
        }]
      }
      return { values: [id, accountId, created_at, build_id, agent_name, preview_label], doc }
    },
    check: (doc: unknown) => encode(Schema.decodeUnknownSync(AgentRuntimeDeployment)(doc)),
    form: formOf(AgentRuntimeDeployment)
  }
}

/** The trace id of the `t`-th trace of the seeded spans (32 hex digits, as the SDK's tracer makes them). */
export const traceIdOf = (t: number) => Crypto.createHash("md5").update(`bench trace ${t}`).digest("hex")

/** The text values of `input` and `output`, lowered: what `SpansRepo`'s `record` writes as `search_text`. */
const searchTextOf = (value: unknown, into: Array<string> = []): Array<string> => {
  if (value === null || value === undefined) return into
  if (typeof value === "object") for (const each of Array.isArray(value) ? value : Object.values(value)) searchTextOf(each, into)
  else into.push(String(value))
  return into
}

/**
 * Spans in traces of `SPANS_PER_TRACE` (bench/spans.ts), a trace every 2.5 s from `BASE_TIME`
 * (1,000,000 spans: 100,000 traces over about 3 days), its spans 3 ms apart.
 */
const spanRows = (accountId: string, identityId: string) => {
  const encode = Schema.encodeSync(Span)
  const created = new Date(BASE_TIME).toISOString()
  const template = encode(
    new Span({
      id: "template",
      account_id: accountId,
      name: "template",
      start_timestamp: created,
      trace_id: "template",
      application_interaction_id: null,
      application_variant_id: null,
      created_by: new Identity({ id: identityId, type: "user", object: "identity" }),
      end_timestamp: null,
      group_id: null,
      input: null,
      metadata: null,
      object: "span",
      output: null,
      parent_id: null,
      status: null,
      type: null
    })
  )
  let rootId = ""
  return {
    columns: ["id", "account_id", "start_ms", "trace_id", "parent_id", "name", "duration_us", "status", "type", "group_id", "application_variant_id", "search_text"],
    row: (i: number): { readonly values: Row; readonly doc: unknown } => {
      const t = Math.floor(i / SPANS_PER_TRACE)
      const position = i % SPANS_PER_TRACE
      const id = Crypto.randomUUID()
      if (position === 0) rootId = id
      const item = spanItem(id, traceIdOf(t), rootId, position, i, BASE_TIME + t * 2500 + position * 3, (i * 37) % 1000)
      const start = instantOf(item.start_timestamp)
      const end = instantOf(item.end_timestamp)
      const doc = {
        ...template,
        id,
        name: item.name,
        start_timestamp: start.iso,
        trace_id: item.trace_id,
        end_timestamp: end.iso,
        input: item.input,
        metadata: item.metadata,
        output: item.output,
        parent_id: item.parent_id ?? null,
        status: item.status,
        type: item.type
      }
      const searchText = searchTextOf([item.input, item.output]).join("\n").toLowerCase()
      return {
        values: [id, accountId, start.ms, item.trace_id, doc.parent_id, item.name, durationUs(start, end), item.status, item.type, null, null, searchText],
        doc
      }
    },
    check: (doc: unknown) => encode(Schema.decodeUnknownSync(Span)(doc)),
    form: formOf(Span)
  }
}

/** Bulk-loads `rows` rows into the (migrated) file: batched transactions, indexes rebuilt after. */
const bulkLoad = (file: string, kind: SeedKind, rows: number, accountId: string, identityId: string) => {
  const shape = kind === "model_groups"
    ? modelGroupRows(accountId, identityId)
    : kind === "spans"
    ? spanRows(accountId, identityId)
    : deploymentRows(accountId, identityId)
  const db = new Database(file)
  try {
    // no journal while loading a file nobody else has open (it is discarded if the load fails)
    db.pragma("journal_mode = OFF")
    db.pragma("synchronous = OFF")
    // room for the whole id index while it is filled in random order
    db.pragma("cache_size = -1048576")
    const indexes = db.prepare<{ name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL"
    ).all(kind)
    for (const index of indexes) db.exec(`DROP INDEX ${index.name}`)
    const columns = [...shape.columns, "doc", "form"]
    const insert = db.prepare(`INSERT INTO ${kind} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
    const samples: Array<string> = []
    const sampleEvery = Math.max(1, Math.floor(rows / 2000))
    const loadBatch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const { values, doc } = shape.row(i)
        if (i % 997 === 0) {
          const roundTrip = shape.check(doc)
          if (JSON.stringify(roundTrip) !== JSON.stringify(doc)) throw new Error(`row ${i} is not in the kit's format`)
        }
        // a sample row has at least 100 older rows: the page after it is a full page
        if (i >= 100 && i % sampleEvery === 0) samples.push(values[0])
        insert.run(...values, JSON.stringify(doc), shape.form)
      }
    })
    for (let from = 0; from < rows; from += BATCH) loadBatch(from, Math.min(rows, from + BATCH))
    for (const index of indexes) db.exec(index.sql)
    db.pragma("journal_mode = WAL")
    return samples
  } finally {
    db.close()
  }
}

/** Shuffles deterministically (the same sample order on every run of one seeded file). */
const shuffled = <A>(items: ReadonlyArray<A>): Array<A> => {
  const out = [...items]
  let state = 0x9e3779b9
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    const j = state % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** A seeded file of `rows` rows of `kind`, from the cache when its fingerprint still matches. */
export const ensureSeeded = async (dir: string, kind: SeedKind, rows: number, log: (line: string) => void): Promise<Seeded> => {
  Fs.mkdirSync(dir, { recursive: true })
  const file = Path.join(dir, `${kind}-${rows}.db`)
  const metaFile = `${file}.json`
  const fingerprint = await fingerprintOf(kind, rows)
  if (Fs.existsSync(metaFile) && Fs.existsSync(file)) {
    const meta = JSON.parse(Fs.readFileSync(metaFile, "utf8")) as Seeded
    if (meta.fingerprint === fingerprint) {
      log(`seed: ${kind} × ${rows.toLocaleString("en")} from cache (${Path.relative(root, file)})`)
      // the file where it is now (a worktree that shares the cache wrote its own path in the meta)
      return { ...meta, file }
    }
  }
  const started = performance.now()
  removeDatabase(file)
  Fs.rmSync(metaFile, { force: true })
  const made = await migrateAndProvision(file)
  const samples = bulkLoad(file, kind, rows, made.accountId, made.identityId)
  const seeded = {
    kind,
    file,
    rows,
    key: BENCH_KEY,
    accountId: made.accountId,
    identityId: made.identityId,
    sampleIds: shuffled(samples)
  }
  await verify(seeded)
  const seconds = (performance.now() - started) / 1000
  const meta: Seeded = { ...seeded, seconds, fingerprint }
  Fs.writeFileSync(metaFile, JSON.stringify(meta))
  log(`seed: ${kind} × ${rows.toLocaleString("en")} written in ${seconds.toFixed(1)} s (${Path.relative(root, file)})`)
  return meta
}

/** A private copy of a seeded file, for a run that writes to it. */
export const copySeeded = (seeded: Seeded, file: string): Seeded => {
  removeDatabase(file)
  Fs.copyFileSync(seeded.file, file)
  return { ...seeded, file }
}
