import { HttpApi, OpenApi } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { PlatformApi } from "@platform-kit/api"

describe("OpenAPI document", () => {
  const spec = OpenApi.fromApi(PlatformApi) as any

  it("describes every authenticated operation with the 422 body and the API key security", () => {
    const operations = Object.entries(spec.paths).flatMap(([path, item]: [string, any]) =>
      Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op }))
    )
    assert.isAbove(operations.length, 3)
    for (const { op, path } of operations) {
      // documented in the code: a summary and a description on every operation
      assert.isString(op.summary, path)
      assert.isString(op.description, path)
      if (path === "/health") {
        // no key, no body, no account: 200 only
        assert.deepStrictEqual(Object.keys(op.responses), ["200"])
        continue
      }
      assert.property(op.responses, "422", `${path} lists the 422 body`)
      assert.notInclude(JSON.stringify(op.responses), "HttpApiDecodeError", `${path} does not list the builder's 400`)
      if (path.startsWith("/admin/")) {
        // the control plane: its own key only
        assert.deepStrictEqual(op.security, [{ adminKey: [] }], path)
      } else if (path.startsWith("/agents/forward/name/")) {
        // a webhook delivery: the sender's signature authenticates it, never the kit's key (docs/agent-tasks.md)
        assert.deepStrictEqual(op.security, [], path)
      } else if (path !== "/health") {
        assert.deepStrictEqual(op.security, [{ apiKey: [] }, { bearer: [] }], path)
      }
    }
    assert.notProperty(spec.components.schemas, "HttpApiDecodeError")
    // error bodies as sent: `detail`, never the instance's `_tag`
    const notFound = spec.paths["/v4/model-groups/{model_group_id}"].get.responses["404"].content["application/json"].schema
    assert.deepStrictEqual(Object.keys(notFound.properties), ["detail"])
    assert.notInclude(JSON.stringify(spec.paths), "\"_tag\"")
    for (const tag of spec.tags) assert.isString(tag.description, tag.name)
    assert.deepStrictEqual(spec.info.license, { name: "MIT", url: "https://opensource.org/licenses/MIT" })
    assert.deepStrictEqual(spec.servers.map((server: any) => server.url), ["http://127.0.0.1:8080"])
    // query schemas must be Structs: a Class would leave the parameters out of the document
    const list = spec.paths["/v4/model-groups"].get
    assert.includeMembers(list.parameters.map((p: any) => p.name), ["page", "limit", "account_id"])
    HttpApi.reflect(PlatformApi, {
      onGroup() {},
      onEndpoint({ endpoint }) {
        if (endpoint.urlParamsSchema._tag === "None") return
        const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
        const op = spec.paths[path][endpoint.method.toLowerCase()]
        const query = op.parameters.filter((p: any) => p.in === "query")
        assert.isAbove(query.length, 0, `${endpoint.method} ${path} documents its query parameters`)
      }
    })
    assert.deepStrictEqual(spec.components.securitySchemes.apiKey, { type: "apiKey", name: "x-api-key", in: "header" })
    assert.deepStrictEqual(spec.components.securitySchemes.adminKey, { type: "apiKey", name: "x-admin-key", in: "header" })
  })
})
