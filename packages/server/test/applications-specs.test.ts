/**
 * Application specs, variants and themes (docs/applications.md "Specs, variants and themes"):
 * stored per account, a spec archived in place and restored, a variant told apart by `version`
 * with its V0 graph validated unless it is a draft.
 */
import { assert, layer } from "@effect/vitest"
import type { Client } from "@platform-kit/client"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

const graph = {
  nodes: [
    { id: "in", application_node_schema_id: "text_input_schema" },
    { id: "out", application_node_schema_id: "text_output_schema" }
  ],
  edges: [{ from_node: "in", from_field: "input-text", to_node: "out", to_field: "output-text" }]
}

const makeSpec = (caller: { readonly accountId: string; readonly client: Client }, name = "support bot") =>
  caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name, description: `${name} answers` } })

layer(TestServerLive)("application specs, variants and themes", (it) => {
  it.effect("a spec reads back; delete archives it (lists hide it unless include_archived), restore brings it back", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const theme = yield* caller.client.themes.create({
        payload: { account_id: caller.accountId, title: "Dark", logo_blob: "data:image/png;base64,AA==", theme_vars: { accentPrimary: "#112233", background: "#000" } }
      })
      const raw = yield* request("GET", `/v4/themes/${theme.id}`, { key: caller.key })
      assert.deepStrictEqual(raw.body.theme_vars, { accentPrimary: "#112233", accentSecondary: null, background: "#000", foreground: null })
      assert.strictEqual(raw.body.archived_at, null)

      const spec = yield* caller.client.applicationSpecs.create({
        payload: { account_id: caller.accountId, name: "support bot", description: "answers", theme_id: theme.id }
      })
      assert.deepInclude({ ...spec }, { name: "support bot", description: "answers", run_online_evaluation: false, theme_id: theme.id })
      assert.strictEqual(spec.archived_at, null)
      assert.deepStrictEqual(yield* caller.client.applicationSpecs.get({ path: { application_spec_id: spec.id } }), spec)

      yield* TestClock.adjust("1 second")
      const deleted = yield* caller.client.applicationSpecs.delete({ path: { application_spec_id: spec.id } })
      assert.deepStrictEqual({ ...deleted }, { count: 1, success: true })
      const archived = yield* caller.client.applicationSpecs.get({ path: { application_spec_id: spec.id } })
      assert.strictEqual(archived.archived_at, "1970-01-01T00:00:01.000Z")
      assert.strictEqual((yield* caller.client.applicationSpecs.list({ urlParams: {} })).total_item_count, 0)
      const all = yield* caller.client.applicationSpecs.list({ urlParams: { include_archived: true } })
      assert.deepStrictEqual(all.items.map((item) => item.id), [spec.id])

      const restored = yield* caller.client.applicationSpecs.update({ path: { application_spec_id: spec.id }, payload: { restore: true } })
      assert.strictEqual(restored.archived_at, null)
      const renamed = yield* caller.client.applicationSpecs.update({
        path: { application_spec_id: spec.id },
        payload: { name: "helpdesk", run_online_evaluation: true }
      })
      assert.deepInclude({ ...renamed }, { name: "helpdesk", description: "answers", run_online_evaluation: true })
      assert.strictEqual((yield* caller.client.applicationSpecs.list({ urlParams: {} })).total_item_count, 1)
    }))

  it.effect("bad bodies are 422s; a theme or spec of another account is a 404; nothing is written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const bobsTheme = yield* bob.client.themes.create({ payload: { account_id: bob.accountId, title: "t", logo_blob: "", theme_vars: {} } })
      const missing = yield* request("POST", "/v4/application-specs", { key: alice.key, body: { account_id: alice.accountId, name: "x" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "description"], type: "missing" }])
      const foreignTheme = yield* request("POST", "/v4/application-specs", {
        key: alice.key,
        body: { account_id: alice.accountId, name: "x", description: "y", theme_id: bobsTheme.id }
      })
      assert.strictEqual(foreignTheme.status, 404)
      assert.deepStrictEqual(foreignTheme.body, { detail: `Theme ${bobsTheme.id} not found` })
      const bobsSpec = yield* makeSpec(bob)
      for (const [method, body] of [["GET", undefined], ["PATCH", { name: "mine" }], ["DELETE", undefined]] as const) {
        const response = yield* request(method, `/v4/application-specs/${bobsSpec.id}`, { key: alice.key, body })
        assert.strictEqual(response.status, 404)
      }
      // restore takes nothing else
      const mixed = yield* request("PATCH", `/v4/application-specs/${bobsSpec.id}`, { key: bob.key, body: { restore: true, name: "x" } })
      assert.strictEqual(mixed.status, 422)
      assert.deepInclude(issues(mixed), { loc: ["body", "name"], type: "value_error" })
      assert.strictEqual((yield* alice.client.applicationSpecs.list({ urlParams: { include_archived: true } })).total_item_count, 0)
      assert.deepStrictEqual(yield* bob.client.applicationSpecs.get({ path: { application_spec_id: bobsSpec.id } }), bobsSpec)
    }))

  it.effect("variants of the three versions read back as created, told apart by version; patch merges configuration", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const spec = yield* makeSpec(caller)
      const v0 = yield* caller.client.applicationVariants.create({
        payload: { account_id: caller.accountId, application_spec_id: spec.id, name: "v0", version: "V0", configuration: graph }
      })
      assert.strictEqual(v0.version, "V0")
      assert.strictEqual(v0.draft, false)
      assert.deepStrictEqual(v0.version === "V0" && v0.configuration.nodes.map((node) => node.id), ["in", "out"])
      const agents = yield* caller.client.applicationVariants.create({
        payload: {
          account_id: caller.accountId,
          application_spec_id: spec.id,
          name: "agent",
          version: "AGENTS_SERVICE",
          draft: true,
          configuration: {
            params: { model: "gpt-4o" },
            type: "WORKFLOW",
            inputs: [{ name: "question", type: "ShortText", required: true }],
            graph: { nodes: [{ id: "n1", name: "answer", type: "llm", operation_type: "COMPLETION" }], edges: [] }
          }
        }
      })
      assert.strictEqual(agents.version, "AGENTS_SERVICE")
      assert.strictEqual(agents.draft, true)
      const offline = yield* caller.client.applicationVariants.create({
        payload: { account_id: caller.accountId, application_spec_id: spec.id, name: "offline", version: "OFFLINE", configuration: {} }
      })
      assert.strictEqual(offline.version, "OFFLINE")

      const raw = yield* request("GET", `/v4/application-variants/${agents.id}`, { key: caller.key })
      assert.deepStrictEqual(raw.body.configuration.params, { model: "gpt-4o" })
      assert.deepStrictEqual(raw.body.configuration.graph.nodes[0].operation_type, "COMPLETION")

      const page = yield* caller.client.applicationVariants.list({ urlParams: { application_spec_id: spec.id } })
      assert.sameMembers(page.items.map((item) => item.version), ["V0", "AGENTS_SERVICE", "OFFLINE"])
      const otherSpec = yield* makeSpec(caller, "other")
      assert.strictEqual((yield* caller.client.applicationVariants.list({ urlParams: { application_spec_id: otherSpec.id } })).total_item_count, 0)

      yield* TestClock.adjust("1 second")
      const patched = yield* caller.client.applicationVariants.patch({
        path: { application_variant_id: agents.id },
        payload: { name: "agent 2", configuration: { params: { model: "gpt-4o-mini" }, metadata: { owner: "ops" } } }
      })
      assert.strictEqual(patched.name, "agent 2")
      assert.isAbove(Date.parse(patched.updated_at), Date.parse(agents.updated_at))
      assert.deepStrictEqual(patched.version === "AGENTS_SERVICE" && patched.configuration.params, { model: "gpt-4o-mini" })
      assert.deepStrictEqual(patched.version === "AGENTS_SERVICE" && patched.configuration.type, "WORKFLOW")
      const v0Patched = yield* caller.client.applicationVariants.patch({
        path: { application_variant_id: v0.id },
        payload: { configuration: { metadata: { owner: "ops" } } }
      })
      assert.deepStrictEqual(v0Patched.version === "V0" && v0Patched.configuration.edges.length, 1)
      const wrongField = yield* request("PATCH", `/v4/application-variants/${v0.id}`, { key: caller.key, body: { configuration: { params: {} } } })
      assert.strictEqual(wrongField.status, 422)
      assert.deepStrictEqual(issues(wrongField), [{ loc: ["body", "configuration", "params"], type: "value_error" }])

      const deleted = yield* caller.client.applicationVariants.delete({ path: { application_variant_id: offline.id } })
      assert.deepStrictEqual({ ...deleted }, { count: 1, success: true })
      assert.strictEqual((yield* request("GET", `/v4/application-variants/${offline.id}`, { key: caller.key })).status, 404)
    }))

  it.effect("a V0 graph is validated unless the variant is a draft; the spec must be the account's", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const spec = yield* makeSpec(caller)
      const noInput = { nodes: [{ id: "out", application_node_schema_id: "text_output_schema" }], edges: [] }
      const invalid = yield* request("POST", "/v4/application-variants", {
        key: caller.key,
        body: { account_id: caller.accountId, application_spec_id: spec.id, name: "bad", version: "V0", configuration: noInput }
      })
      assert.strictEqual(invalid.status, 400)
      assert.strictEqual(invalid.body.service_error_code, "APPLICATION_BUILDER_VALIDATION_ERROR")
      assert.deepStrictEqual(invalid.body.errors.map((error: { error_code: string }) => error.error_code), ["INVALID_APPLICATION_NO_INPUT_NODE"])
      const draft = yield* caller.client.applicationVariants.create({
        payload: { account_id: caller.accountId, application_spec_id: spec.id, name: "wip", version: "V0", draft: true, configuration: noInput }
      })
      assert.strictEqual(draft.draft, true)

      const foreignSpec = yield* request("POST", "/v4/application-variants", {
        key: other.key,
        body: { account_id: other.accountId, application_spec_id: spec.id, name: "x", version: "OFFLINE", configuration: {} }
      })
      assert.strictEqual(foreignSpec.status, 404)
      assert.deepStrictEqual(foreignSpec.body, { detail: `Application spec ${spec.id} not found` })
      const unknownVersion = yield* request("POST", "/v4/application-variants", {
        key: caller.key,
        body: { account_id: caller.accountId, application_spec_id: spec.id, name: "x", version: "V9", configuration: {} }
      })
      assert.strictEqual(unknownVersion.status, 422)
      assert.strictEqual((yield* caller.client.applicationVariants.list({ urlParams: {} })).total_item_count, 1)
      assert.strictEqual((yield* request("GET", `/v4/application-variants/${draft.id}`, { key: other.key })).status, 404)
    }))

  it.effect("interactions under a stored spec of another account are a 404; an id no spec has stays a namespace", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const bobsSpec = yield* makeSpec(bob)
      const body = { application_variant_id: "v1", start_timestamp: "2024-01-01T00:00:00Z", duration_ms: 5, input_tokens: 1, output_tokens: 1 }
      const foreign = yield* request("POST", `/v4/applications/${bobsSpec.id}/interactions`, { key: alice.key, body })
      assert.strictEqual(foreign.status, 404)
      assert.strictEqual((yield* request("GET", `/v4/applications/${bobsSpec.id}/interactions`, { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("POST", `/v4/applications/${bobsSpec.id}/interactions`, { key: bob.key, body })).status, 200)
      const free = yield* request("POST", `/v4/applications/not-a-stored-spec/interactions`, { key: alice.key, body })
      assert.strictEqual(free.status, 200)
    }))
})
