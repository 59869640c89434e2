/**
 * Building blocks shared by every resource: ids, timestamps, audit fields, page envelopes and the
 * field helpers that encode the contract's rules for optional values.
 */
import { Schema } from "effect"

/** Ids are opaque strings on the wire (the server mints UUID v4). */
export const Id = Schema.String

const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** An ISO 8601 date-time string, as every timestamp on the wire is. */
export const DateTimeString = Schema.String.pipe(
  Schema.filter((s) => isoDateTime.test(s) && !Number.isNaN(Date.parse(s)), {
    message: () => "Input should be a valid ISO 8601 date-time"
  }),
  Schema.annotations({
    identifier: "DateTimeString",
    jsonSchema: { type: "string", format: "date-time" },
    // property-based tests: generate valid timestamps directly (a filtered string would never match)
    arbitrary: () => (fc) =>
      fc.date({ min: new Date("1970-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true })
        .map((d) => d.toISOString())
  })
)

/** A JSON object with arbitrary members. */
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "JsonObject"
})

/**
 * A field of a response that the spec lists but that may have no value: always present on the wire,
 * `null` when empty (docs/decisions.md "Wire").
 */
export const Nullable = <S extends Schema.Schema.Any>(schema: S) => Schema.NullOr(schema)

/**
 * An optional field of a request body: may be absent or `null` (both mean "not given").
 */
export const Optional = <S extends Schema.Schema.All>(schema: S) =>
  Schema.optionalWith(schema, { exact: true, nullable: true })

/** A field that is present only when a view asks for it. */
export const OnlyWithView = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const IdentityType = Schema.Literal("user", "service_account").annotations({ identifier: "IdentityType" })
export type IdentityType = typeof IdentityType.Type

/** The v4 audit fields every v4 entity carries. */
export const AuditFields = {
  account_id: Id,
  created_by_user_id: Id,
  created_by_identity_type: IdentityType,
  created_at: DateTimeString
} as const

/** The v5 identity object (`created_by`). */
export class Identity extends Schema.Class<Identity>("Identity")({
  id: Id,
  type: Schema.String,
  object: Schema.Literal("identity")
}) {}

/** A non-empty string (names, titles). */
export const NonEmptyString = Schema.String.pipe(Schema.minLength(1))

/** What the real v4 SDK's deletes answer (`GenericDeleteResponse`): how many were deleted, and that it went well. */
export class GenericDeleteResponse extends Schema.Class<GenericDeleteResponse>("GenericDeleteResponse")({
  count: Schema.Int,
  success: Schema.Boolean
}) {}

// ---------------------------------------------------------------------------------------------
// v4 pagination

/**
 * A page number: an integer from 1 to 2^53 − 1 (`Number.MAX_SAFE_INTEGER`); a larger one cannot be
 * told from its neighbours once parsed, so it is a 422 rather than a page of another number.
 */
const PageNumber = Schema.NumberFromString.pipe(
  Schema.int(),
  Schema.greaterThanOrEqualTo(1),
  Schema.lessThanOrEqualTo(Number.MAX_SAFE_INTEGER)
)
const PageSize = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 10000))

/**
 * Query of every v4 list: `page` (1 to 2^53 − 1, default 1), `limit` (1–10000, default 100), `account_id`.
 * The defaults are applied by the server (`pageOf`), so a client may leave both out.
 */
export const V4PageQuery = {
  page: Schema.optionalWith(PageNumber, { exact: true }),
  limit: Schema.optionalWith(PageSize, { exact: true }),
  account_id: Schema.optionalWith(Id, { exact: true })
} as const

/** The page a v4 list query asks for, with the defaults applied. */
export const pageOf = (query: { readonly page?: number | undefined; readonly limit?: number | undefined }) => ({
  page: query.page ?? 1,
  limit: query.limit ?? 100
})

/**
 * The query of a plain v4 list. Query schemas are Structs, not Classes: the OpenAPI document lists
 * a Struct's fields as parameters.
 */
export const V4ListQuery = Schema.Struct(V4PageQuery)

/** The v4 page envelope. */
export const V4Page = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({
    items: Schema.Array(item),
    total_item_count: Schema.Int,
    current_page: Schema.Int,
    items_per_page: Schema.Int
  })

// ---------------------------------------------------------------------------------------------
// v5 cursor pagination

const V5Limit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 10000))

/**
 * Query of every v5 list: `limit` (1–10000, default 100), `starting_after` / `ending_before` (an
 * item id), `sort_order` (`asc` | `desc`, default `desc`) and `sort_by` (one of `sortFields`,
 * default `created_at`). Defaults are applied by the server (`cursorOf`).
 */
export const V5PageQuery = <const Sort extends string>(sortFields: readonly [Sort, ...Array<Sort>]) => ({
  limit: Schema.optionalWith(V5Limit, { exact: true }),
  starting_after: Schema.optionalWith(Id, { exact: true }),
  ending_before: Schema.optionalWith(Id, { exact: true }),
  sort_order: Schema.optionalWith(Schema.Literal("asc", "desc"), { exact: true }),
  sort_by: Schema.optionalWith(Schema.Literal(...sortFields), { exact: true })
})

/** The cursor a v5 list query asks for, with the defaults applied. */
export const cursorOf = <Sort extends string = "created_at">(query: {
  readonly limit?: number | undefined
  readonly starting_after?: string | undefined
  readonly ending_before?: string | undefined
  readonly sort_order?: "asc" | "desc" | undefined
  readonly sort_by?: Sort | undefined
}) => ({
  limit: query.limit ?? 100,
  startingAfter: query.starting_after,
  endingBefore: query.ending_before,
  sortOrder: query.sort_order ?? ("desc" as const),
  sortBy: (query.sort_by ?? "created_at") as Sort | "created_at"
})

/** The v5 list envelope. */
export const V5List = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({
    items: Schema.Array(item),
    total: Schema.Int,
    has_more: Schema.Boolean,
    limit: Schema.Int,
    object: Schema.Literal("list")
  })

/** Accepts a query array comma-joined (`?tags=a,b`) or repeated (`?tags=a&tags=b`). */
export const QueryArray = <S extends Schema.Schema<any, any, never>>(item: S) =>
  Schema.transform(
    Schema.Union(Schema.String, Schema.Array(Schema.String)),
    Schema.Array(Schema.String),
    {
      strict: true,
      decode: (input) =>
        (typeof input === "string" ? [input] : input).flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) =>
          s.length > 0
        ),
      encode: (items) => items
    }
  ).pipe(Schema.compose(Schema.Array(item), { strict: false }))

/** A boolean query flag: `true`/`false` (also `1`/`0`). */
export const QueryBoolean = Schema.transform(
  Schema.Literal("true", "false", "1", "0", "True", "False"),
  Schema.Boolean,
  { strict: true, decode: (s) => s === "true" || s === "1" || s === "True", encode: (b) => (b ? "true" : "false") }
)

/** The sort keys of `fields` (`<field>:asc`, `<field>:desc`), as one Literal named `identifier`. */
export const SortKeys = <const Fields extends ReadonlyArray<string>>(fields: Fields, identifier: string) => {
  type Key = `${Fields[number]}:${"asc" | "desc"}`
  const keys = fields.flatMap((field) => [`${field}:asc`, `${field}:desc`]) as unknown as readonly [Key, ...Array<Key>]
  return Schema.Literal(...keys).annotations({ identifier })
}
