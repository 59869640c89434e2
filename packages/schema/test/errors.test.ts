import { assert, describe, it } from "@effect/vitest"
import { Forbidden, NotFound, Unauthorized, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Schema } from "effect"

describe("error bodies", () => {
  it("encode to exactly the contract's body, with no _tag on the wire", () => {
    assert.deepStrictEqual(Schema.encodeSync(NotFound)(new NotFound({ detail: "gone" })), { detail: "gone" })
    const validation = new ValidationError({
      detail: [new ValidationIssue({ loc: ["body", "name"], msg: "Field required", type: "missing", input: {} })]
    })
    assert.deepStrictEqual(Schema.encodeSync(ValidationError)(validation), {
      detail: [{ loc: ["body", "name"], msg: "Field required", type: "missing", input: {} }]
    })
  })

  it("decode from the wire with their _tag, and errors of one shape stay apart", () => {
    const decoded = Schema.decodeUnknownSync(Unauthorized)({ detail: "no key" })
    assert.strictEqual(decoded._tag, "Unauthorized")
    const union = Schema.Union(Forbidden, Unauthorized, NotFound)
    assert.deepStrictEqual(Schema.encodeSync(union)(new Unauthorized({ detail: "x" })), { detail: "x" })
    assert.isTrue(Schema.is(Unauthorized)(new Unauthorized({ detail: "x" })))
    assert.isFalse(Schema.is(Forbidden)(new Unauthorized({ detail: "x" })))
  })
})
