import { assert, describe, it } from "@effect/vitest"
import { cursorOf, DateTimeString, pageOf, QueryArray, QueryBoolean, V4ListQuery } from "@platform-kit/schema"
import { Either, Schema } from "effect"

describe("common schemas", () => {
  it("query arrays accept comma-joined and repeated values", () => {
    const decode = Schema.decodeUnknownSync(QueryArray(Schema.String))
    assert.deepStrictEqual(decode("a,b"), ["a", "b"])
    assert.deepStrictEqual(decode(["a", "b,c"]), ["a", "b", "c"])
    assert.deepStrictEqual(decode("a, ,b,"), ["a", "b"])
  })

  it("query booleans", () => {
    const decode = Schema.decodeUnknownEither(QueryBoolean)
    assert.deepStrictEqual(decode("true"), Either.right(true))
    assert.deepStrictEqual(decode("0"), Either.right(false))
    assert.isTrue(Either.isLeft(decode("yes")))
  })

  it("date-times must be ISO 8601 with a zone", () => {
    const is = Schema.is(DateTimeString)
    assert.isTrue(is("2026-11-22T10:00:00.000Z"))
    assert.isTrue(is("2026-11-22T10:00:00+02:00"))
    assert.isFalse(is("2026-11-22"))
    assert.isFalse(is("2026-13-40T10:00:00Z"))
    assert.isFalse(is("yesterday"))
  })

  it("v4 page query: defaults and bounds", () => {
    const decode = Schema.decodeUnknownEither(V4ListQuery)
    assert.deepStrictEqual(pageOf(Either.getOrThrow(decode({}))), { page: 1, limit: 100 })
    assert.deepStrictEqual(pageOf(Either.getOrThrow(decode({ page: "3", limit: "10000" }))), { page: 3, limit: 10000 })
    assert.isTrue(Either.isLeft(decode({ page: "0" })))
    assert.isTrue(Either.isLeft(decode({ limit: "10001" })))
    assert.isTrue(Either.isLeft(decode({ limit: "1.5" })))
  })

  it("v5 cursor defaults", () => {
    assert.deepStrictEqual(cursorOf({}), {
      limit: 100,
      startingAfter: undefined,
      endingBefore: undefined,
      sortOrder: "desc",
      sortBy: "created_at"
    })
  })
})
