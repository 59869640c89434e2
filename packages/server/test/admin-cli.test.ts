/**
 * The admin CLI's commands (src/admin/cli.ts) on a database of their own: what `accounts list` and
 * `keys list` print (never a key: only its first characters), and what they refuse.
 * `processes/admin-cli.reliability.ts` runs the real `platform-kit` program.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer, Redacted, TestClock } from "effect"
import { run, parse } from "../src/admin/cli.js"
import { Accounts } from "../src/auth/Accounts.js"
import { Ids } from "../src/platform/Ids.js"
import { DatabaseTest } from "../src/testDatabase.js"

const AdminTest = Accounts.Default.pipe(Layer.provide(Ids.Live), Layer.provide(DatabaseTest))

/** What `platform-kit argv…` prints, or the message it fails with. */
const cli = (...argv: Array<string>) =>
  Effect.gen(function*() {
    const command = parse(argv)
    if (Either.isLeft(command)) return { usage: command.left.message }
    return yield* run(command.right).pipe(Effect.catchTag("AdminError", (error) => Effect.succeed({ failed: error.message })))
  })

const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

describe("admin CLI: lists", () => {
  it.effect("accounts list: every account, oldest first, tab-separated; the column names on stderr", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* cli("accounts", "list"), { out: [], notes: ["no accounts"] })
      const accounts = yield* Accounts
      const first = yield* accounts.createAccount({ name: "first" })
      yield* TestClock.adjust("1 second")
      const second = yield* accounts.createAccount({ name: "second" })
      const listed = yield* cli("accounts", "list")
      assert.deepStrictEqual("out" in listed && listed.notes, ["id\tname\tcreated_at"])
      const rows = ("out" in listed ? listed.out : []).map((line) => line.split("\t"))
      assert.deepStrictEqual(rows.map(([id, name]) => [id, name]), [[first, "first"], [second, "second"]])
      for (const row of rows) assert.match(row[2]!, iso)
      assert.deepStrictEqual(yield* cli("accounts", "list", "extra"), { usage: "unexpected argument extra" })
    }).pipe(Effect.provide(AdminTest)))

  it.effect("keys list: each key by id and first characters, its identity, accounts and state; never the key", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const alice = yield* accounts.provisionUser()
      yield* TestClock.adjust("1 second")
      const bob = yield* accounts.provisionUser({ type: "service_account" })
      yield* TestClock.adjust("1 second")
      yield* accounts.addMember(bob.identityId, alice.accountId)
      yield* accounts.revokeKey(Redacted.value(bob.key))
      const listed = yield* cli("keys", "list")
      if (!("out" in listed)) return assert.fail(JSON.stringify(listed))
      assert.deepStrictEqual(listed.notes, ["id\tkey\tidentity\ttype\taccounts\tcreated_at\tstate"])
      for (const key of [alice.key, bob.key]) assert.notInclude(listed.out.join("\n"), Redacted.value(key).slice(7))
      const rows = listed.out.map((line) => line.split("\t"))
      assert.deepStrictEqual(rows.map(([, prefix, identity, type, accountIds]) => [prefix, identity, type, accountIds]), [
        [`${Redacted.value(alice.key).slice(0, 7)}…`, alice.identityId, "user", alice.accountId],
        [`${Redacted.value(bob.key).slice(0, 7)}…`, bob.identityId, "service_account", `${bob.accountId},${alice.accountId}`]
      ])
      assert.strictEqual(rows[0]![6], "active")
      assert.match(rows[1]![6]!, /^revoked \d{4}-/)
      // the keys of one account's members
      const ofBob = yield* cli("keys", "list", "--account", bob.accountId)
      assert.deepStrictEqual("out" in ofBob && ofBob.out.map((line) => line.split("\t")[2]), [bob.identityId])
      assert.deepStrictEqual(yield* cli("keys", "list", "--account", "nope"), { failed: "account nope not found" })
      assert.deepStrictEqual(yield* cli("keys", "list", "--name", "x"), { usage: "unknown option --name" })
    }).pipe(Effect.provide(AdminTest)))

  it.effect("a key's first characters are a quarter of it at most: a short configured key shows little", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      yield* accounts.provisionUser({ key: "pk_short_key_1" })
      const listed = yield* cli("keys", "list")
      assert.deepStrictEqual("out" in listed && listed.out.map((line) => line.split("\t")[1]), ["pk_…"])
    }).pipe(Effect.provide(AdminTest)))
})
