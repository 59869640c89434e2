/**
 * The admin CLI as an operator runs it: `platform-kit …` (the bin link `npm ci` makes) as a child
 * process on a SQLite file, while the server serves that same file. What it creates opens the API;
 * a key it revokes is refused with 401 on the very next request.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../../src/testing.js"
import { fileServer } from "../support/fileServer.js"
import { cleanup, type CliResult, runCli, tempDir } from "../support/processes.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("platform-kit admin CLI", () => {
  it.live("accounts, keys and members made by the CLI open the API; a revoked key is a 401 at once", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("cli")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const cli = (...args: Array<string>) => Effect.promise(() => runCli(args, { databaseUrl }))
      const ok = (result: CliResult) => {
        assert.strictEqual(result.code, 0, result.stderr)
        return result.stdout.trim()
      }

      // a fresh file: the CLI creates and migrates it
      const account = ok(yield* cli("accounts", "create", "--name", "acme"))
      assert.match(account, uuid)
      const made = yield* cli("keys", "create", "--account", account, "--identity-type", "service_account", "--email", "ops@acme.test")
      const key = ok(made)
      assert.match(key, /^pk_[A-Za-z0-9_-]+$/)
      const identity = /identity (\S+)/.exec(made.stderr)?.[1]
      assert.match(identity ?? "", uuid)
      let madeOverHttp = ""

      yield* Effect.gen(function*() {
        // the key works, as the service account of that account
        const created = yield* request("POST", "/v5/evaluations", { key, body: { name: "made with a CLI key" } })
        assert.strictEqual(created.status, 200)
        assert.deepStrictEqual(created.body.created_by, { id: identity, type: "service_account", object: "identity" })

        // members add: the identity reaches a second account
        const second = ok(yield* cli("accounts", "create"))
        const select = { "x-selected-account-id": second }
        assert.strictEqual((yield* request("GET", "/v5/evaluations", { key, headers: select })).status, 403)
        const added = ok(yield* cli("members", "add", "--account", second, "--identity", identity!, "--role", "viewer"))
        assert.include(added, second)
        assert.strictEqual((yield* request("GET", "/v5/evaluations", { key, headers: select })).status, 200)

        // who the key is: its e-mail and its two memberships with their roles; an account made over HTTP
        const me = yield* request("GET", "/user-info", { key })
        assert.strictEqual(me.body.email, "ops@acme.test")
        assert.deepStrictEqual(me.body.access_profiles.map((p: any) => [p.account.id, p.account.name, p.role]), [
          [account, "acme", "admin"],
          [second, second, "viewer"]
        ])
        const made = yield* request("POST", "/accounts", { key, body: { account_name: "made over http" } })
        assert.strictEqual(made.status, 200)
        madeOverHttp = made.body.account_id

        // keys revoke: the very next request is refused
        assert.strictEqual(ok(yield* cli("keys", "revoke", key)), "revoked")
        const refused = yield* request("GET", "/v5/evaluations", { key })
        assert.strictEqual(refused.status, 401)
        assert.isString(refused.body.detail)
        assert.strictEqual(ok(yield* cli("keys", "revoke", key)), "already revoked")
      }).pipe(Effect.provide(fileServer(databaseUrl)))

      // the lists: the accounts, and the key by its first characters (never the key), revoked
      const [accounts, keys] = yield* Effect.all([cli("accounts", "list"), cli("keys", "list", "--account", account)], { concurrency: 2 })
      assert.deepStrictEqual(ok(accounts).split("\n").map((line) => line.split("\t").slice(0, 2)).filter(([id]) => id === account || id === madeOverHttp), [
        [account, "acme"],
        [madeOverHttp, "made over http"]
      ])
      assert.strictEqual(accounts.stderr.trim(), "id\tname\tcreated_at")
      const [listed] = ok(keys).split("\n").map((line) => line.split("\t"))
      assert.deepStrictEqual(listed!.slice(1, 4), [`${key.slice(0, 7)}…`, identity, "service_account"])
      assert.strictEqual(listed![4]!.split(",")[0], account)
      assert.match(listed![6]!, /^revoked /)
      assert.notInclude(keys.stdout, key.slice(7))

      // what cannot be done exits 1, a bad command line 2 (with the usage); nothing is printed on stdout
      const [noAccount, noKey, noIdentity, badType, unknown] = yield* Effect.all([
        cli("keys", "create", "--account", "no-such-account"),
        cli("keys", "revoke", "pk_no_such_key"),
        cli("members", "add", "--account", account, "--identity", "no-such-identity"),
        cli("keys", "create", "--account", account, "--identity-type", "admin"),
        cli("accounts", "delete")
      ], { concurrency: "unbounded" })
      for (const [result, code, message] of [
        [noAccount, 1, "account no-such-account not found"],
        [noKey, 1, "no such key"],
        [noIdentity, 1, "identity no-such-identity not found"],
        [badType, 2, "--identity-type must be user or service_account"],
        [unknown, 2, "unknown command: accounts delete"]
      ] as const) {
        assert.strictEqual(result.code, code, result.stderr)
        assert.include(result.stderr, message)
        assert.strictEqual(result.stdout, "")
      }
      assert.include(badType.stderr, "Usage: platform-kit")
    }).pipe(Effect.scoped), 300_000)

  it.live("`npx platform-kit` runs from the repository root", () =>
    Effect.gen(function*() {
      const help = yield* Effect.promise(() =>
        runCli(["--help"], { databaseUrl: "sqlite::memory:", command: ["npx", "--no-install", "platform-kit"] })
      )
      assert.strictEqual(help.code, 0, help.stderr)
      assert.include(help.stdout, "Usage: platform-kit")
      assert.include(help.stdout, "keys revoke KEY")
    }), 120_000)
})
