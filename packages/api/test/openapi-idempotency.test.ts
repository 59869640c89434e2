import { OpenApi } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { PlatformApi } from "@platform-kit/api"

describe("OpenAPI document: Idempotency-Key", () => {
  const spec = OpenApi.fromApi(PlatformApi) as any

  it("every POST documents the optional Idempotency-Key header; other methods do not", () => {
    let posts = 0
    for (const [path, item] of Object.entries<any>(spec.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const header = (op.parameters ?? []).filter((p: any) => p.in === "header" && p.name === "Idempotency-Key")
        if (method === "post") {
          posts++
          assert.strictEqual(header.length, 1, `POST ${path}`)
          assert.isFalse(header[0].required)
          assert.strictEqual(header[0].schema.maxLength, 255)
        } else {
          assert.strictEqual(header.length, 0, `${method} ${path}`)
        }
      }
    }
    assert.isAbove(posts, 10)
  })
})
