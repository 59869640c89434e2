/**
 * The peer: the benchmarked routes written the usual Fastify 5 + better-sqlite3 way, over the same
 * SQLite file the kit uses (same tables, same SQL, same documents), with the same JSON out, the same
 * request validation (422 `{"detail":[…]}`, all problems at once, no type coercion), the same
 * authentication (SHA-256 of the key looked up per request, x-api-key or Bearer), the same
 * `x-request-id` header and the same durability (WAL, `synchronous = FULL`, foreign keys on).
 *
 * Not part of the kit: it exists only so the benchmark can report ratios measured in one session.
 * Routes: POST/GET `/v4/model-groups`, GET `/v4/model-groups/:id`, GET `/v5/agent-runtime/deployments`.
 *
 * Environment: `BENCH_DB` (the SQLite file), `PORT`, `HOST`.
 */
import Database from "better-sqlite3"
import Fastify from "fastify"
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify"
import * as Crypto from "node:crypto"

const file = process.env.BENCH_DB
if (file === undefined) throw new Error("BENCH_DB is required")
const port = Number(process.env.PORT ?? 8081)
const host = process.env.HOST ?? "127.0.0.1"

const db = new Database(file)
db.pragma("journal_mode = WAL")
db.pragma(`synchronous = ${process.env.PLATFORM_SQLITE_SYNCHRONOUS ?? "FULL"}`)
db.pragma("foreign_keys = ON")

// ---------------------------------------------------------------------------------------------
// authentication: the kit's query, per request

interface Caller {
  readonly identityId: string
  readonly identityType: string
  readonly accountIds: ReadonlyArray<string>
  readonly selectedAccountId: string | undefined
}

const findCaller = db.prepare<{ identity_id: string; type: string; account_id: string | null }>(`
  SELECT k.identity_id, i.type, m.account_id
  FROM api_keys k
  JOIN identities i ON i.id = k.identity_id
  LEFT JOIN memberships m ON m.identity_id = k.identity_id
  WHERE k.key_hash = ? AND k.revoked_at IS NULL
  ORDER BY m.created_at, m.account_id`)

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller
  }
}

const unauthorized = (reply: FastifyReply, detail: string) => reply.code(401).send({ detail })

const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
  const header = request.headers["x-api-key"]
  const authorization = request.headers.authorization
  const key = typeof header === "string" && header !== ""
    ? header
    : authorization?.startsWith("Bearer ") === true
    ? authorization.slice("Bearer ".length)
    : ""
  if (key === "") return unauthorized(reply, "Missing API key: send it in the x-api-key header")
  const rows = findCaller.all(Crypto.createHash("sha256").update(key).digest("hex"))
  if (rows.length === 0) return unauthorized(reply, "Invalid API key")
  const selected = request.headers["x-selected-account-id"]
  request.caller = {
    identityId: rows[0]!.identity_id,
    identityType: rows[0]!.type,
    accountIds: rows.flatMap((row) => (row.account_id === null ? [] : [row.account_id])),
    selectedAccountId: typeof selected === "string" && selected !== "" ? selected : undefined
  }
}

class HttpError extends Error {
  constructor(readonly status: number, readonly body: unknown) {
    super(typeof body === "string" ? body : "request failed")
  }
}

const forbidden = (accountId: string) =>
  new HttpError(403, { detail: `Account ${accountId} is not accessible with this API key` })

const requireAccount = (caller: Caller, accountId: string) => {
  if (!caller.accountIds.includes(accountId)) throw forbidden(accountId)
  return accountId
}

/** The kit's `accountsForRead`: the `account_id` filter, else the selected account, else all. */
const accountsForRead = (caller: Caller, accountId: string | undefined): ReadonlyArray<string> => {
  if (accountId !== undefined) return [requireAccount(caller, accountId)]
  if (caller.selectedAccountId !== undefined) return [requireAccount(caller, caller.selectedAccountId)]
  return caller.accountIds
}

const issue = (loc: ReadonlyArray<string | number>, msg: string, type: string, input: unknown) => ({ loc, msg, type, input })
const unprocessable = (issues: ReadonlyArray<ReturnType<typeof issue>>) => new HttpError(422, { detail: issues })

// ---------------------------------------------------------------------------------------------
// statements (one per arity of `account_id IN (…)`)

const cached = new Map<string, Database.Statement<any>>()
const statement = <Row>(sql: string): Database.Statement<Row> => {
  let prepared = cached.get(sql)
  if (prepared === undefined) {
    prepared = db.prepare(sql)
    cached.set(sql, prepared)
  }
  return prepared as Database.Statement<Row>
}
const inList = (accountIds: ReadonlyArray<string>) => `account_id IN (${accountIds.map(() => "?").join(", ")})`

// ---------------------------------------------------------------------------------------------
// JSON schemas: request validation and response serialization

const nullableString = { type: ["string", "null"] } as const
const modelGroup = {
  type: "object",
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    description: nullableString,
    account_id: { type: "string" },
    created_by_user_id: { type: "string" },
    created_by_identity_type: { type: "string" },
    created_at: { type: "string" }
  }
} as const
const deployment = {
  type: "object",
  properties: {
    id: { type: "string" },
    namespace: nullableString,
    manifest_file: nullableString,
    environment_config: nullableString,
    status: { type: "string" },
    account_id: { type: "string" },
    build_id: { type: "string" },
    agent_name: { type: "string" },
    helm_release_name: nullableString,
    preview_label: nullableString,
    created_at: { type: "string" },
    expires_at: nullableString,
    created_by: {
      type: "object",
      properties: { id: { type: "string" }, type: { type: "string" }, object: { type: "string" } }
    },
    object: { type: "string" },
    deploy_events: {
      type: "array",
      items: {
        type: "object",
        properties: {
          type: { type: "string" },
          reason: { type: "string" },
          message: { type: "string" },
          timestamp: { type: "string" }
        }
      }
    }
  }
} as const
const integerString = { type: "string", pattern: "^-?[0-9]+$" } as const
const v4Query = {
  type: "object",
  properties: { page: integerString, limit: integerString, account_id: { type: "string" } }
} as const
const v5Query = {
  type: "object",
  properties: {
    limit: integerString,
    starting_after: { type: "string" },
    ending_before: { type: "string" },
    sort_order: { enum: ["asc", "desc"] },
    sort_by: { enum: ["created_at", "agent_name"] },
    account_id: { type: "string" },
    build_id: { type: "string" },
    agent_name: { type: "string" },
    preview_label: { type: "string" }
  }
} as const

const intParam = (value: string | undefined, name: string, fallback: number, min: number, max: number) => {
  if (value === undefined) return fallback
  const n = Number(value)
  if (n < min || n > max) {
    throw unprocessable([issue(["query", name], `Input should be between ${min} and ${max}`, "range_error", value)])
  }
  return n
}

// ---------------------------------------------------------------------------------------------
// the server

const app = Fastify({
  logger: false,
  bodyLimit: 1024 * 1024,
  ajv: { customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false } }
})

app.addHook("onRequest", async (request, reply) => {
  const requestId = request.headers["x-request-id"]
  reply.header("x-request-id", typeof requestId === "string" && requestId !== "" ? requestId : Crypto.randomUUID())
})

const ajvType: Record<string, string> = { string: "string_type", number: "number_type", boolean: "bool_type", object: "dict_type", array: "list_type" }

app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
  if (error instanceof HttpError) return reply.code(error.status).send(error.body)
  if (error.validation !== undefined) {
    const where = error.validationContext === "querystring" ? "query" : error.validationContext ?? "body"
    const input = where === "query" ? request.query : request.body
    return reply.code(422).send({
      detail: error.validation.map((v) => {
        const path = v.instancePath.split("/").filter((s) => s !== "").map((s) => (/^\d+$/.test(s) ? Number(s) : s))
        if (v.keyword === "required") {
          const field = String((v.params as { missingProperty: string }).missingProperty)
          return issue([where, ...path, field], "Field required", "missing", null)
        }
        const value = path.reduce<unknown>((at, key) => (at as Record<string | number, unknown> | undefined)?.[key], input)
        const type = v.keyword === "type"
          ? ajvType[String((v.params as { type: string | Array<string> }).type).split(",")[0]!] ?? "value_error"
          : v.keyword === "minLength"
          ? "string_too_short"
          : v.keyword === "enum"
          ? "literal_error"
          : "value_error"
        return issue([where, ...path], v.message ?? "Invalid value", type, value)
      })
    })
  }
  if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error.code === "FST_ERR_CTP_EMPTY_JSON_BODY") {
    return reply.code(422).send({ detail: [issue(["body"], `JSON decode error: ${error.message}`, "json_invalid", null)] })
  }
  if (error.statusCode === 413) return reply.code(413).send({ detail: "Request body larger than 1048576 bytes" })
  request.log.error(error)
  return reply.code(500).send({ detail: "Internal Server Error" })
})

app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: "Not Found" }))

app.get("/health", async () => ({ status: "ok" }))

app.post<{ Body: { name: string; account_id: string; description?: string | null } }>("/v4/model-groups", {
  preHandler: authenticate,
  schema: {
    body: {
      type: "object",
      required: ["name", "account_id"],
      properties: { name: { type: "string", minLength: 1 }, account_id: { type: "string" }, description: nullableString }
    },
    response: { 200: modelGroup }
  }
}, async (request) => {
  const caller = request.caller
  const accountId = requireAccount(caller, request.body.account_id)
  const group = {
    id: Crypto.randomUUID(),
    name: request.body.name,
    description: request.body.description ?? null,
    account_id: accountId,
    created_by_user_id: caller.identityId,
    created_by_identity_type: caller.identityType,
    created_at: new Date().toISOString()
  }
  statement("INSERT INTO model_groups (id, account_id, created_at, doc) VALUES (?, ?, ?, ?)").run(
    group.id,
    group.account_id,
    group.created_at,
    JSON.stringify(group)
  )
  return group
})

app.get<{ Params: { id: string } }>("/v4/model-groups/:id", {
  preHandler: authenticate,
  schema: { response: { 200: modelGroup } }
}, async (request) => {
  const accounts = request.caller.accountIds
  const row = accounts.length === 0
    ? undefined
    : statement<{ doc: string }>(`SELECT doc FROM model_groups WHERE id = ? AND ${inList(accounts)}`).get(
      request.params.id,
      ...accounts
    )
  if (row === undefined) throw new HttpError(404, { detail: `Model group ${request.params.id} not found` })
  return JSON.parse(row.doc)
})

app.get<{ Querystring: { page?: string; limit?: string; account_id?: string } }>("/v4/model-groups", {
  preHandler: authenticate,
  schema: {
    querystring: v4Query,
    response: {
      200: {
        type: "object",
        properties: {
          items: { type: "array", items: modelGroup },
          total_item_count: { type: "integer" },
          current_page: { type: "integer" },
          items_per_page: { type: "integer" }
        }
      }
    }
  }
}, async (request) => {
  const page = intParam(request.query.page, "page", 1, 1, Number.MAX_SAFE_INTEGER)
  const limit = intParam(request.query.limit, "limit", 100, 1, 10000)
  const accounts = accountsForRead(request.caller, request.query.account_id)
  const empty = { items: [] as Array<unknown>, total_item_count: 0, current_page: page, items_per_page: limit }
  if (accounts.length === 0) return empty
  const rows = statement<{ doc: string; total: number }>(
    `SELECT doc, COUNT(*) OVER () AS total FROM model_groups WHERE ${inList(accounts)} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
  ).all(...accounts, limit, (page - 1) * limit)
  const total = rows.length > 0
    ? rows[0]!.total
    : statement<{ total: number }>(`SELECT COUNT(*) AS total FROM model_groups WHERE ${inList(accounts)}`).get(...accounts)!.total
  return { ...empty, items: rows.map((row) => JSON.parse(row.doc)), total_item_count: total }
})

interface DeploymentQuery {
  limit?: string
  starting_after?: string
  ending_before?: string
  sort_order?: "asc" | "desc"
  sort_by?: "created_at" | "agent_name"
  account_id?: string
  build_id?: string
  agent_name?: string
  preview_label?: string
}

app.get<{ Querystring: DeploymentQuery }>("/v5/agent-runtime/deployments", {
  preHandler: authenticate,
  schema: {
    querystring: v5Query,
    response: {
      200: {
        type: "object",
        properties: {
          items: { type: "array", items: deployment },
          total: { type: "integer" },
          has_more: { type: "boolean" },
          limit: { type: "integer" },
          object: { type: "string" }
        }
      }
    }
  }
}, async (request) => {
  const query = request.query
  const limit = intParam(query.limit, "limit", 100, 1, 10000)
  const empty = { items: [] as Array<unknown>, total: 0, has_more: false, limit, object: "list" }
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw unprocessable([
      issue(["query", "ending_before"], "starting_after and ending_before cannot be combined", "value_error", query.ending_before)
    ])
  }
  const accounts = accountsForRead(request.caller, query.account_id)
  if (accounts.length === 0) return empty
  const filters = [inList(accounts)]
  const filterParams: Array<unknown> = [...accounts]
  for (const column of ["build_id", "agent_name", "preview_label"] as const) {
    if (query[column] !== undefined) {
      filters.push(`${column} = ?`)
      filterParams.push(query[column])
    }
  }
  const where = filters.join(" AND ")
  const column = query.sort_by ?? "created_at"
  const backwards = query.ending_before !== undefined
  const cursorId = query.starting_after ?? query.ending_before
  const readDesc = ((query.sort_order ?? "desc") === "desc") !== backwards
  const conditions = [where]
  const params = [...filterParams]
  if (cursorId !== undefined) {
    const cursor = statement<{ k: unknown }>(`SELECT ${column} AS k FROM agent_runtime_deployments WHERE id = ? AND ${where}`).get(
      cursorId,
      ...filterParams
    )
    if (cursor === undefined) {
      throw unprocessable([
        issue(["query", backwards ? "ending_before" : "starting_after"], "No item with this id in the list", "value_error", cursorId)
      ])
    }
    const op = readDesc ? "<" : ">"
    conditions.push(`(${column}, id) ${op} (?, ?)`)
    params.push(cursor.k, cursorId)
  }
  const direction = readDesc ? "DESC" : "ASC"
  const rows = statement<{ doc: string }>(
    `SELECT doc FROM agent_runtime_deployments WHERE ${conditions.join(" AND ")} ORDER BY ${column} ${direction}, id ${direction} LIMIT ?`
  ).all(...params, limit + 1)
  const total = statement<{ total: number }>(`SELECT COUNT(*) AS total FROM agent_runtime_deployments WHERE ${where}`).get(
    ...filterParams
  )!.total
  const page = rows.slice(0, limit).map((row) => JSON.parse(row.doc))
  return { ...empty, items: backwards ? page.reverse() : page, total, has_more: rows.length > limit }
})

const shutdown = () => {
  void app.close().then(() => {
    db.close()
    process.exit(0)
  })
}
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)

await app.listen({ port, host })
