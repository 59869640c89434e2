/**
 * The fuzz's requests: a valid request for an endpoint, derived from its Schemas with
 * `Arbitrary.make` and pointed at real entities of the fuzz account, then (usually) broken in one
 * way: a wrong type, a missing or extra field, `null`, a huge or negative number, a long or odd
 * string (lone surrogates, `\u0000`), deep nesting, a duplicate key, a wrong content type,
 * truncated or malformed JSON, an oversized body, a junk query value or path segment, a foreign
 * account header.
 */
import { Arbitrary, Option, Schema } from "effect"
import * as fc from "fast-check"
import { type Endpoint, queryKeys } from "./endpoints.js"
import { queryValues, type World } from "./world.js"

type Path = ReadonlyArray<string | number>

export interface FuzzCase {
  readonly method: string
  /** Encoded path segments by parameter. */
  readonly segments: Readonly<Record<string, string>>
  /** `?…` or empty. */
  readonly query: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  readonly chunked?: boolean
  /** The body value when the body is well-formed JSON, sent as `application/json`, within the size limit. */
  readonly json?: unknown
  /** Whether the request carries the account's valid key. */
  readonly keyValid: boolean
  /** What was done to the request. */
  readonly notes: ReadonlyArray<string>
  /** Where in the body a field was broken, if that was the mutation. */
  readonly brokenAt?: Path
}

// ---------------------------------------------------------------------------------------------
// JSON helpers

const clone = <A>(value: A): A => (value === undefined ? value : JSON.parse(JSON.stringify(value)))

/** Every path in a JSON value (the root is `[]`), objects and arrays included. */
export const pathsOf = (value: unknown, prefix: Path = [], out: Array<Path> = []): Array<Path> => {
  out.push(prefix)
  if (out.length > 500) return out
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out))
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out)
  }
  return out
}

const getAt = (value: unknown, path: Path): unknown => path.reduce<any>((v, k) => (v == null ? undefined : v[k]), value)

/** `value` with the node at `path` replaced by `replacement` (or removed when `undefined`). */
const setAt = (value: unknown, path: Path, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const copy: any = clone(value)
  const parent: any = getAt(copy, path.slice(0, -1))
  const last = path[path.length - 1]!
  if (parent === null || typeof parent !== "object") return copy
  if (replacement === undefined) {
    if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1)
    else delete parent[last]
  } else {
    parent[last] = replacement
  }
  return copy
}

const RAW = "\u0001raw\u0001"

/** JSON text of `value` with the node at `path` written as the raw text `raw` (a number JSON can't hold, deep nesting). */
const withRawAt = (value: unknown, path: Path, raw: string): string =>
  JSON.stringify(setAt(value, path, RAW)).replace(JSON.stringify(RAW), raw)

// ---------------------------------------------------------------------------------------------
// Values

const weirdStrings = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfffy",
    "\ud83d\ude00",
    "\u202egnp.exe",
    "\ufeffbom",
    "Ω≈ç√∫˜µ≤≥÷",
    "ﷺ",
    "𝕏".repeat(200),
    "é".normalize("NFD").repeat(50),
    "x".repeat(100_000),
    "'; DROP TABLE accounts; --",
    "\" OR 1=1 --",
    "%s%n%x%d",
    "{{7*7}}${7*7}",
    "../../../../etc/passwd",
    "\\",
    "\n\r\t\b\f",
    "null",
    "true",
    "-1",
    "NaN",
    "Infinity",
    "1e999",
    "2021-13-45T99:99:99Z",
    "0000-00-00T00:00:00Z",
    "9999-12-31T23:59:59.999Z",
    "-000001-01-01T00:00:00Z",
    "__proto__",
    "constructor"
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 })
)

const hugeNumbers = fc.constantFrom(
  1e308,
  -1e308,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  -1,
  -2147483649,
  2147483648,
  4294967296,
  1e21,
  5e-324,
  0.5,
  -0,
  0
)

/** Number literals JSON.parse turns into what JSON cannot write back (`Infinity`) or rounds. */
const rawNumbers = fc.constantFrom("1e999", "-1e999", "1E400", "123456789012345678901234567890", "-0.0", "1.0e-400")

const otherTypes = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.string({ maxLength: 10 }),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 })
)

const extraKeys = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    "created_by_user_id",
    "created_by_identity_type",
    "created_by",
    "id",
    "created_at",
    "status",
    "archived_at",
    "__proto__",
    "constructor",
    "prototype",
    "doc",
    "key_hash"
  )
)

const contentTypes = fc.constantFrom(
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=zzz",
  "application/xml",
  "application/octet-stream",
  "application/json; charset=utf-16",
  "APPLICATION/JSON",
  "application/vnd.api+json",
  "image/png"
)

const malformedTexts = fc.constantFrom(
  "",
  "{",
  "}",
  "[",
  "{\"a\":}",
  "{\"a\":1,}",
  "{'a':1}",
  "{a:1}",
  "{\"a\":NaN}",
  "{\"a\":Infinity}",
  "{\"a\":undefined}",
  "{\"a\":1 /* c */}",
  "\ufeff{}",
  "null",
  "[]",
  "1",
  "\"text\"",
  "true",
  "{\"a\":\"\\ud800\"}",
  "{\"a\":\"\\u0000\"}",
  "{\"a\":\"\\x41\"}",
  "{\"a\":\"unterminated}",
  "\u0000",
  "{}{}",
  "{\"a\":1}garbage"
)

// ---------------------------------------------------------------------------------------------
// Parts of a request

const safeEncode = (s: string): string => {
  try {
    return encodeURIComponent(s)
  } catch {
    return "%ED%A0%80" // a lone surrogate, as UTF-8 bytes
  }
}

const junkSegments = fc.oneof(
  fc.uuid().map(safeEncode),
  fc.string({ unit: "binary", maxLength: 30 }).filter((s) => s.length > 0).map(safeEncode),
  fc.constantFrom("%", "%zz", "%E0%A4%A", "%00", "..", ".", "%2F", "a%2Fb", "%20", "x".repeat(5000), "%ED%A0%80", "null", "0", "-1")
)

const pathArbitrary = (endpoint: Endpoint, world: World): fc.Arbitrary<{ segments: Record<string, string>; notes: Array<string> }> => {
  if (endpoint.pathParams.length === 0) return fc.constant({ segments: {}, notes: [] })
  return fc.tuple(...endpoint.pathParams.map((param) => {
    const real = world.values[param]
    if (real === undefined) throw new Error(`no fixture for path parameter ${param} (add it to test/support/world.ts)`)
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant({ segment: safeEncode(real), note: undefined as string | undefined }) },
      { weight: 2, arbitrary: junkSegments.map((segment) => ({ segment, note: `path ${param}=${segment.slice(0, 40)}` })) }
    )
  })).map((parts) => ({
    segments: Object.fromEntries(parts.map((p, i) => [endpoint.pathParams[i]!, p.segment])),
    notes: parts.flatMap((p) => (p.note === undefined ? [] : [p.note]))
  }))
}

/** A value of `schema`'s type, encoded to what the wire carries (JSON-normalized). */
const wireValues = (schema: Schema.Schema.Any): fc.Arbitrary<unknown> =>
  (Arbitrary.make(schema as Schema.Schema<unknown, unknown, never>) as unknown as fc.Arbitrary<unknown>).map((value) => {
    try {
      return clone(Schema.encodeSync(schema as Schema.Schema<unknown, unknown, never>)(value))
    } catch {
      return clone(value)
    }
  })

/** Puts the fuzz account's real ids where a body or query names them, so a request can succeed. */
const pointAtWorld = (value: unknown, values: Readonly<Record<string, string>>): unknown => {
  if (Array.isArray(value)) return value.map((v) => pointAtWorld(v, values))
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === "string" && values[k] !== undefined ? values[k] : pointAtWorld(v, values)])
  )
}

type Query = Record<string, string | Array<string>>

/** Page numbers whose offset overflows 64 bits, or that are past 2^53 − 1 themselves. */
const hugePages = ["9007199254740991", "9007199254740992", "4611686018427387904", "99999999999999999999", "1e300"]

const queryArbitrary = (endpoint: Endpoint, world: World): fc.Arbitrary<{ query: string; notes: Array<string> }> => {
  const values = queryValues(world, endpoint.key)
  const base: fc.Arbitrary<Query> = Option.match(endpoint.urlParams, {
    onNone: () => fc.constant({}),
    onSome: (schema) =>
      fc.tuple(wireValues(schema), fc.boolean()).map(([query, point]) => {
        const q = (typeof query === "object" && query !== null ? query : {}) as Query
        if (!point) return q
        const out: Query = { ...q }
        for (const key of Object.keys(out)) if (values[key] !== undefined) out[key] = values[key]!
        // required stream keys (events) are always pointed at the world
        return out
      })
  })
  const serialize = (q: Query, raw: Array<string> = []) => {
    const parts: Array<string> = []
    for (const [k, v] of Object.entries(q)) {
      for (const item of Array.isArray(v) ? v : [v]) parts.push(`${safeEncode(k)}=${safeEncode(String(item))}`)
    }
    parts.push(...raw)
    return parts.length === 0 ? "" : `?${parts.join("&")}`
  }
  const junkValue = fc.oneof(
    fc.constantFrom("", "-1", "0", "1e999", "NaN", "abc", "99999999999999999999", "true", "1.5", "null", "[]", "x".repeat(10_000)),
    fc.string({ unit: "binary", maxLength: 20 })
  )
  const keys = queryKeys(endpoint)
  const knownKey = keys.length > 0 ? fc.constantFrom(...keys) : fc.constant("unknown")
  return fc.tuple(base, fc.nat(9), knownKey, junkValue, fc.string({ maxLength: 10 })).map(([q, kind, key, junk, name]) => {
    switch (kind) {
      case 0:
        return { query: serialize({ ...q, [key]: junk }), notes: [`query ${key}=${JSON.stringify(junk.slice(0, 30))}`] }
      case 1:
        return { query: serialize({ ...q, [name || "zz"]: junk }), notes: [`query unknown ${JSON.stringify(name)}`] }
      case 2:
        return { query: serialize({ ...q, [key]: [junk, "second"] }), notes: [`query ${key} repeated`] }
      case 3:
        return { query: serialize(q, ["%zz=%", `${safeEncode(key)}=%E0%A4%A`, "&&", "=x"]), notes: ["query malformed encoding"] }
      case 4:
        return { query: serialize({ ...q, account_id: junk }), notes: ["query account_id junk"] }
      case 5: {
        // the offset overflows: a page number at or past 2^53 − 1 with the largest page size
        if (!keys.includes("page")) return { query: serialize(q), notes: [] }
        const page = hugePages[junk.length % hugePages.length]!
        return { query: serialize({ ...q, page, limit: "10000" }), notes: [`query page=${page}&limit=10000`] }
      }
      default:
        return { query: serialize(q), notes: [] }
    }
  })
}

const headerArbitrary = (world: World): fc.Arbitrary<{ headers: Record<string, string>; keyValid: boolean; notes: Array<string> }> =>
  fc.oneof(
    { weight: 14, arbitrary: fc.constant({ headers: { "x-api-key": world.key }, keyValid: true, notes: [] as Array<string> }) },
    {
      weight: 2,
      arbitrary: fc.constant({ headers: { authorization: `Bearer ${world.key}` }, keyValid: true, notes: ["bearer"] })
    },
    {
      weight: 2,
      arbitrary: fc.oneof(fc.uuid(), fc.constant(world.accountId), fc.string({ maxLength: 20 })).map((selected) => ({
        headers: { "x-api-key": world.key, "x-selected-account-id": selected },
        keyValid: true,
        notes: [`x-selected-account-id ${selected === world.accountId ? "own" : JSON.stringify(selected)}`]
      }))
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("", "pk_", "pk_wrong", `${world.key}x`, world.key.toUpperCase(), "Bearer").map((key) => ({
        headers: { "x-api-key": key },
        keyValid: false,
        notes: [`bad key ${JSON.stringify(key)}`]
      }))
    }
  )

export interface Body {
  readonly body?: string
  readonly chunked?: boolean
  readonly json?: unknown
  readonly contentType?: string
  readonly notes: Array<string>
  readonly brokenAt?: Path
}

const asJson = (value: unknown, notes: Array<string>, brokenAt?: Path): Body => {
  const body = JSON.stringify(value) ?? "null"
  return { body, json: JSON.parse(body), contentType: "application/json", notes, ...(brokenAt ? { brokenAt } : {}) }
}

const asText = (body: string, notes: Array<string>, contentType = "application/json"): Body => {
  let json: unknown = undefined
  let ok = false
  try {
    json = JSON.parse(body)
    ok = true
  } catch {
    // malformed on purpose
  }
  return { body, contentType, notes, ...(ok && contentType === "application/json" ? { json } : {}) }
}

export const bodyArbitrary = (endpoint: Endpoint, world: Pick<World, "values">, maxBodyBytes: number): fc.Arbitrary<Body> => {
  if (!endpoint.hasBody) return fc.constant({ notes: [] })
  const schema = Option.getOrUndefined(endpoint.payload)
  const base: fc.Arbitrary<unknown> = schema === undefined
    ? fc.constant({})
    : fc.tuple(wireValues(schema), fc.nat(9)).map(([value, n]) => (n < 8 ? pointAtWorld(value, world.values) : value))
  const atPath = <A>(value: unknown, arb: fc.Arbitrary<A>) => {
    const paths = pathsOf(value)
    return fc.tuple(fc.constantFrom(...paths), arb)
  }
  return fc.tuple(base, fc.nat(99)).chain(([value, pick]): fc.Arbitrary<Body> => {
    const leaves = pathsOf(value).filter((p) => p.length > 0)
    const fields = leaves.length > 0 ? leaves : [[] as Path]
    const field = fc.constantFrom(...fields)
    if (pick < 20) return fc.constant(asJson(value, ["valid body"]))
    if (pick < 32) {
      return fc.tuple(field, otherTypes).map(([path, other]) => asJson(setAt(value, path, other), [`wrong type at ${path.join(".")}`], path))
    }
    if (pick < 40) {
      return field.map((path) => asJson(setAt(value, path, undefined), [`missing ${path.join(".")}`], path))
    }
    if (pick < 46) {
      return fc.tuple(extraKeys, otherTypes).map(([k, v]) =>
        asJson(typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value, [k]: v } : value, [`extra field ${k}`])
      )
    }
    if (pick < 52) return field.map((path) => asJson(setAt(value, path, null), [`null at ${path.join(".")}`], path))
    if (pick < 58) {
      return fc.tuple(field, hugeNumbers).map(([path, n]) => asJson(setAt(value, path, n), [`number ${n} at ${path.join(".")}`], path))
    }
    if (pick < 62) {
      return fc.tuple(field, rawNumbers).map(([path, n]) => asText(withRawAt(value, path, n), [`raw number ${n} at ${path.join(".")}`]))
    }
    if (pick < 70) {
      // odd strings where strings are (a string leaf), so the body usually stays valid
      const strings = leaves.filter((p) => typeof getAt(value, p) === "string")
      const target = strings.length > 0 ? fc.constantFrom(...strings) : field
      return fc.tuple(target, weirdStrings).map(([path, s]) =>
        asJson(setAt(value, path, s), [`string ${JSON.stringify(s.slice(0, 20))}${s.length > 20 ? `…(${s.length})` : ""} at ${path.join(".")}`])
      )
    }
    if (pick < 74) {
      return fc.tuple(atPath(value, fc.constantFrom(64, 1000, 10_000, 100_000)), fc.boolean()).map(([[path, depth], arrays]) => {
        const nested = arrays ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`
        // no oracle value: the test itself would not survive walking it
        const { json: _, ...body } = asText(withRawAt(value, path, nested), [`nesting ${depth} deep (${arrays ? "arrays" : "objects"}) at ${path.join(".")}`])
        return body
      })
    }
    if (pick < 78) {
      const keys = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : []
      if (keys.length === 0) return fc.constant(asText("{\"a\":1,\"a\":2}", ["duplicate key a"]))
      return fc.tuple(fc.constantFrom(...keys), otherTypes, fc.boolean()).map(([k, junk, junkLast]) => {
        const text = JSON.stringify(value)
        const dup = `${JSON.stringify(k)}:${JSON.stringify(junk)}`
        const body = junkLast ? `${text.slice(0, -1)},${dup}}` : `{${dup},${text.slice(1)}`
        return asText(body, [`duplicate key ${k} (${junkLast ? "junk wins" : "original wins"})`])
      })
    }
    if (pick < 83) {
      return contentTypes.map((contentType) => asText(JSON.stringify(value), [`content-type ${contentType}`], contentType))
    }
    if (pick < 88) {
      const text = JSON.stringify(value)
      return fc.nat(Math.max(0, text.length - 1)).map((n) => asText(text.slice(0, n), [`truncated at ${n}/${text.length}`]))
    }
    if (pick < 92) return malformedTexts.map((text) => asText(text, [`malformed ${JSON.stringify(text.slice(0, 20))}`]))
    if (pick < 95) {
      return fc.tuple(fc.boolean(), fc.constantFrom(1, 1000)).map(([chunked, extra]) => {
        const filler = "x".repeat(maxBodyBytes + extra)
        const body = JSON.stringify(typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value, filler } : { filler })
        return { body, chunked, contentType: "application/json", notes: [`oversized ${body.length} bytes${chunked ? " chunked" : ""}`] }
      })
    }
    if (pick < 97) {
      return fc.jsonValue({ maxDepth: 3 }).map((other) => asJson(other, ["whole body replaced"], []))
    }
    return fc.constant({ notes: ["no body"] })
  })
}

/** Requests for `endpoint`, against the fuzz account's world. */
export const caseArbitrary = (endpoint: Endpoint, world: World, maxBodyBytes: number): fc.Arbitrary<FuzzCase> =>
  fc.tuple(
    pathArbitrary(endpoint, world),
    queryArbitrary(endpoint, world),
    headerArbitrary(world),
    bodyArbitrary(endpoint, world, maxBodyBytes)
  ).map(([path, query, headers, body]) => ({
    method: endpoint.method,
    segments: path.segments,
    query: query.query,
    headers: { ...headers.headers, ...(body.contentType !== undefined ? { "content-type": body.contentType } : {}) },
    ...(body.body !== undefined ? { body: body.body } : {}),
    ...(body.chunked ? { chunked: true } : {}),
    ...(body.json !== undefined || (body.body !== undefined && body.contentType === "application/json" && body.json !== undefined)
      ? { json: body.json }
      : {}),
    keyValid: headers.keyValid,
    notes: [...path.notes, ...query.notes, ...headers.notes, ...body.notes],
    ...(body.brokenAt !== undefined ? { brokenAt: body.brokenAt } : {})
  }))
