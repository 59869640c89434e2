import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid, isoPattern as iso } from "../src/testing.js"

/**
 * `deployment` read back as the create answered it: its lifecycle moves it on meanwhile
 * (agent-runtime-lifecycle.test.ts): its status, and the deploy events after the first.
 */
const asCreated = (deployment: any, created: any) => ({
  ...deployment,
  status: created.status,
  deploy_events: deployment.deploy_events.slice(0, created.deploy_events.length)
})

const deploymentKeys = [
  "account_id",
  "agent_name",
  "build_id",
  "created_at",
  "created_by",
  "deploy_events",
  "environment_config",
  "expires_at",
  "helm_release_name",
  "id",
  "manifest_file",
  "namespace",
  "object",
  "preview_label",
  "status"
]

const countRows = (accountId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM agent_runtime_deployments WHERE account_id = ${accountId}`
  ).pipe(Effect.map((rows) => Number(rows[0]!.n)))

layer(TestServerLive)("agent runtime deployments", (it) => {
  it.effect("create answers every field of a deployment plus agent_name, with a first deploy event; get and list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const response = yield* request("POST", "/v5/agent-runtime/deployments", {
        key,
        body: {
          build_id: "build-42",
          agent_name: "support-bot",
          namespace: "agents-prod",
          manifest_file: "apiVersion: v1\nkind: Deployment\n",
          environment_config: "{\"LOG_LEVEL\":\"debug\"}",
          helm_release_name: "support-bot-42",
          preview_label: "pr-1234",
          expires_at: "2026-12-01T12:00:00+02:00",
          account_id: accountId,
          status: "READY",
          created_by: { id: "someone-else", type: "user", object: "identity" },
          deploy_events: [],
          ignored_field: true
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.deepStrictEqual(Object.keys(created).sort(), deploymentKeys)
      assert.match(created.id, uuid)
      assert.strictEqual(created.namespace, "agents-prod")
      assert.strictEqual(created.manifest_file, "apiVersion: v1\nkind: Deployment\n")
      assert.strictEqual(created.environment_config, "{\"LOG_LEVEL\":\"debug\"}")
      assert.strictEqual(created.status, "PENDING")
      assert.strictEqual(created.account_id, accountId)
      assert.strictEqual(created.build_id, "build-42")
      assert.strictEqual(created.agent_name, "support-bot")
      assert.strictEqual(created.helm_release_name, "support-bot-42")
      assert.strictEqual(created.preview_label, "pr-1234")
      assert.match(created.created_at, iso)
      assert.strictEqual(created.expires_at, "2026-12-01T10:00:00.000Z")
      assert.deepStrictEqual(created.created_by, { id: identityId, type: "user", object: "identity" })
      assert.strictEqual(created.object, "agent_runtime_cloud_deploy")
      assert.deepStrictEqual(created.deploy_events, [
        {
          type: "Normal",
          reason: "Created",
          message: "Deployment of build build-42 (agent support-bot) created",
          timestamp: created.created_at
        }
      ])

      const read = yield* request("GET", `/v5/agent-runtime/deployments/${created.id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(asCreated(read.body, created), created)
      const list = yield* request("GET", "/v5/agent-runtime/deployments", { key })
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(
        { ...list.body, items: list.body.items.map((item: any) => asCreated(item, created)) },
        { items: [created], total: 1, has_more: false, limit: 100, object: "list" }
      )

      const typed = yield* client.agentRuntime.get({ path: { deployment_id: created.id } })
      assert.strictEqual(typed.agent_name, "support-bot")
      assert.strictEqual(typed.deploy_events[0]!.reason, "Created")
    }))

  it.effect("optional fields absent or null are null; the account is the caller's only one", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const bare = yield* client.agentRuntime.create({ payload: { build_id: "b1", agent_name: "a1" } })
      assert.strictEqual(bare.account_id, accountId)
      for (const field of ["namespace", "manifest_file", "environment_config", "helm_release_name", "preview_label", "expires_at"] as const) {
        assert.strictEqual(bare[field], null)
      }
      assert.strictEqual(bare.status, "PENDING")
      assert.strictEqual(bare.deploy_events.length, 1)
      const nulls = yield* request("POST", "/v5/agent-runtime/deployments", {
        key,
        body: {
          build_id: "b2",
          agent_name: "a2",
          namespace: null,
          manifest_file: null,
          environment_config: null,
          helm_release_name: null,
          preview_label: null,
          expires_at: null,
          account_id: null
        }
      })
      assert.strictEqual(nulls.status, 200)
      assert.strictEqual(nulls.body.preview_label, null)
      assert.strictEqual(nulls.body.expires_at, null)
      assert.strictEqual(nulls.body.account_id, accountId)
    }))

  it.effect("agent_name is optional: answered (and stored) as null; the deploy event names the build only", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      for (const body of [{ build_id: "nameless" }, { build_id: "nameless", agent_name: null }]) {
        const created = yield* request("POST", "/v5/agent-runtime/deployments", { key, body })
        assert.strictEqual(created.status, 200)
        assert.strictEqual(created.body.agent_name, null)
        assert.strictEqual(created.body.build_id, "nameless")
        assert.strictEqual(created.body.deploy_events[0].message, "Deployment of build nameless created")
        const read = yield* request("GET", `/v5/agent-runtime/deployments/${created.body.id}`, { key })
        assert.deepStrictEqual(asCreated(read.body, created.body), created.body)
      }
      const listed = yield* request("GET", "/v5/agent-runtime/deployments", { key })
      assert.strictEqual(listed.body.total, 2)
      assert.deepStrictEqual(listed.body.items.map((d: { agent_name: unknown }) => d.agent_name), [null, null])
    }))

  it.effect("create validation: 422 with exact loc and type, and nothing written", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const missing = yield* request("POST", "/v5/agent-runtime/deployments", { key, body: { namespace: "n" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "build_id"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v5/agent-runtime/deployments", {
        key,
        body: {
          build_id: "",
          agent_name: 3,
          namespace: 1,
          manifest_file: {},
          environment_config: { LOG_LEVEL: "debug" },
          helm_release_name: [],
          preview_label: false,
          expires_at: "tomorrow",
          account_id: 5
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "build_id"], type: "string_too_short" },
        { loc: ["body", "agent_name"], type: "string_type" },
        { loc: ["body", "namespace"], type: "string_type" },
        { loc: ["body", "manifest_file"], type: "string_type" },
        { loc: ["body", "environment_config"], type: "string_type" },
        { loc: ["body", "helm_release_name"], type: "string_type" },
        { loc: ["body", "preview_label"], type: "string_type" },
        { loc: ["body", "expires_at"], type: "value_error" },
        { loc: ["body", "account_id"], type: "string_type" }
      ])
      assert.strictEqual(wrong.body.detail[7].msg, "Input should be a valid ISO 8601 date-time")

      const malformed = yield* request("POST", "/v5/agent-runtime/deployments", { key, body: "{\"build_id\"" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      assert.strictEqual(yield* countRows(accountId), 0)
      const list = yield* client.agentRuntime.list({ urlParams: {} })
      assert.strictEqual(list.total, 0)
    }))

  it.effect("403 for an account_id the caller is not in, on create and on list; nothing written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const create = yield* request("POST", "/v5/agent-runtime/deployments", {
        key: bob.key,
        body: { build_id: "b", agent_name: "a", account_id: alice.accountId }
      })
      assert.strictEqual(create.status, 403)
      assert.isString(create.body.detail)
      const list = yield* request("GET", `/v5/agent-runtime/deployments?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(list.status, 403)
      assert.strictEqual(yield* countRows(alice.accountId), 0)
      assert.strictEqual(yield* countRows(bob.accountId), 0)
    }))

  it.effect("401 without a key (or with an unknown one) on every endpoint, and nothing written", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const created = yield* client.agentRuntime.create({ payload: { build_id: "b", agent_name: "a" } })
      const calls = [
        request("POST", "/v5/agent-runtime/deployments", { body: { build_id: "b", agent_name: "a" } }),
        request("GET", "/v5/agent-runtime/deployments"),
        request("GET", `/v5/agent-runtime/deployments/${created.id}`),
        request("POST", "/v5/agent-runtime/deployments", { key: "pk_unknown", body: { build_id: "b", agent_name: "a" } })
      ]
      for (const call of calls) {
        const response = yield* call
        assert.strictEqual(response.status, 401)
        assert.isString(response.body.detail)
      }
      assert.strictEqual(yield* countRows(accountId), 1)
    }))

  it.effect("get: 404 for a missing id (any shape) and for another account's deployment", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const created = yield* alice.client.agentRuntime.create({ payload: { build_id: "b", agent_name: "a" } })
      const missing = yield* Effect.flip(alice.client.agentRuntime.get({ path: { deployment_id: "no-such-id" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const uuidShaped = yield* request("GET", "/v5/agent-runtime/deployments/00000000-0000-4000-8000-000000000000", {
        key: alice.key
      })
      assert.strictEqual(uuidShaped.status, 404)
      const foreign = yield* request("GET", `/v5/agent-runtime/deployments/${created.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Agent runtime deployment ${created.id} not found` })
      const bobs = yield* bob.client.agentRuntime.list({ urlParams: {} })
      assert.strictEqual(bobs.total, 0)
    }))
})
