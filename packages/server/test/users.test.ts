/**
 * Users and accounts (docs/users.md): `GET /user-info` says who a key is, `GET /users/{id}` shows a
 * member of the caller's accounts (only what they share), `POST /accounts` makes an account whose
 * admin is the caller, usable by the very next request.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive, uuidPattern } from "../src/testing.js"

layer(TestServerLive)("users and accounts", (it) => {
  it.effect("user-info: the key's identity and one access profile per account, oldest first, with roles", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const accounts = yield* Accounts
      yield* TestClock.adjust("1 second")
      const second = yield* accounts.createAccount({ name: "second" })
      yield* accounts.addMember(caller.identityId, second, "viewer")

      const info = yield* caller.client.users.info()
      assert.strictEqual(info.id, caller.identityId)
      assert.strictEqual(info.email, "")
      assert.deepStrictEqual(info.access_profiles.map((p) => [p.account.id, p.account.name, p.role, p.user_id]), [
        [caller.accountId, caller.accountId, "admin", caller.identityId],
        [second, "second", "viewer", caller.identityId]
      ])
      // a profile's id is a UUID, the same on every read, different per membership
      const [a, b] = info.access_profiles.map((p) => p.id)
      assert.match(a!, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.notStrictEqual(a, b)
      assert.deepStrictEqual((yield* caller.client.users.info()).access_profiles.map((p) => p.id), [a, b])

      // the account a request selects is the profile assumed; another account's is a 403
      const selected = yield* request("GET", "/user-info", { key: caller.key, headers: { "x-selected-account-id": second } })
      assert.deepStrictEqual(selected.body.assumed_access_profile, selected.body.access_profiles[1])
      assert.strictEqual(info.assumed_access_profile, null)
      assert.deepInclude({ ...info }, { first_name: null, last_name: null, organization_id: null, preferences: null })
      const other = yield* provision()
      const foreign = yield* request("GET", "/user-info", { key: caller.key, headers: { "x-selected-account-id": other.accountId } })
      assert.strictEqual(foreign.status, 403)

      const none = yield* request("GET", "/user-info")
      assert.strictEqual(none.status, 401)
    }))

  it.effect("users/{id}: a member of a shared account, with the shared profiles only; anyone else is a 404", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const carol = yield* provision()
      const accounts = yield* Accounts
      // bob joins alice's account as an editor; bob's own account is not alice's to see
      yield* accounts.addMember(bob.identityId, alice.accountId, "editor")

      const seen = yield* alice.client.users.get({ path: { user_id: bob.identityId } })
      assert.strictEqual(seen.id, bob.identityId)
      assert.deepStrictEqual(seen.access_profiles.map((p) => [p.account.id, p.role]), [[alice.accountId, "editor"]])
      const self = yield* alice.client.users.get({ path: { user_id: alice.identityId } })
      assert.deepStrictEqual(self.access_profiles.map((p) => p.account.id), [alice.accountId])

      for (const id of [carol.identityId, "no-such-user"]) {
        const hidden = yield* request("GET", `/users/${id}`, { key: alice.key })
        assert.strictEqual(hidden.status, 404)
        assert.deepStrictEqual(hidden.body, { detail: `User ${id} not found` })
      }
    }))

  it.effect("POST /accounts: the caller is the new account's admin at once; a bad body is a 422 and makes nothing", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      yield* TestClock.adjust("1 second")
      const made = yield* caller.client.users.createAccount({ payload: { account_name: "Research" } })
      assert.match(made.account_id, uuidPattern)
      const info = yield* caller.client.users.info()
      assert.deepStrictEqual(info.access_profiles.map((p) => [p.account.id, p.account.name, p.role]), [
        [caller.accountId, caller.accountId, "admin"],
        [made.account_id, "Research", "admin"]
      ])
      // the key writes to it from the next request on
      const group = yield* caller.client.modelGroups.create({ payload: { name: "g", account_id: made.account_id } })
      assert.strictEqual(group.account_id, made.account_id)

      const before = (yield* (yield* Accounts).listAccounts).length
      for (const body of [{}, { account_name: "" }, { account_name: 7 }]) {
        const bad = yield* request("POST", "/accounts", { key: caller.key, body })
        assert.strictEqual(bad.status, 422)
        assert.deepStrictEqual(issues(bad).map((issue: { loc: Array<string> }) => issue.loc), [["body", "account_name"]])
      }
      assert.strictEqual((yield* (yield* Accounts).listAccounts).length, before)
    }))
})
