import { afterAll, assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Stream } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Accounts } from "../src/auth/Accounts.js"
import { ApplicationFilesRepo } from "../src/applications/files/ApplicationFilesRepo.js"
import { isoPattern as iso, issues, provision, request, uuidPattern as uuid } from "../src/testing.js"
import { serverWith } from "./support/progression.js"

const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "application-files-"))
afterAll(() => Fs.rmSync(root, { recursive: true, force: true }))
const bucket = Path.join(root, ".platform", "application-files")
/** The objects of the files' bucket (none before the first upload). */
const stored = () => (Fs.existsSync(bucket) ? Fs.readdirSync(bucket).sort() : [])

/** A form of `files`, each a part named `key` (the SDK's `files[]` by default). */
const form = (
  files: ReadonlyArray<{ readonly name: string; readonly content: string | Uint8Array; readonly type?: string }>,
  key = "files[]"
) => {
  const data = new FormData()
  for (const file of files) data.append(key, new Blob([file.content], { type: file.type ?? "text/plain" }), file.name)
  return data
}

/** The repository as other code (a document node) uses it, on the suite's store. */
const repo = ApplicationFilesRepo.Default.pipe(
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["PLATFORM_OBJECT_STORE_ROOT", root]]))))
)

const bytesOf = (id: string, accounts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { bytes, file } = yield* (yield* ApplicationFilesRepo).content(id, accounts)
    const chunks = yield* Stream.runCollect(bytes)
    return { file, text: Buffer.concat([...chunks]).toString("utf8") }
  }).pipe(Effect.provide(repo))

layer(serverWith({ PLATFORM_OBJECT_STORE_ROOT: root }))("application files", (it) => {
  it.effect("upload: parts named files[] answer a bare array in order (audit fields from the key); the bytes are in the store as sent; get, list and the repository read them", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const binary = new Uint8Array([0, 255, 1, 254, 10, 13])
      const created = yield* caller.client.applicationFiles.upload({
        urlParams: { account_id: caller.accountId },
        payload: form([
          { name: "policy.txt", content: "héllo 😀\n" },
          { name: "data.json", content: "{\"a\":1}", type: "application/json" },
          { name: "blob.bin", content: binary, type: "application/octet-stream" }
        ])
      })
      assert.deepStrictEqual(created.map((file) => [file.file_name, file.file_size_bytes]), [
        ["policy.txt", Buffer.byteLength("héllo 😀\n")],
        ["data.json", 7],
        ["blob.bin", 6]
      ])
      for (const file of created) {
        assert.match(file.id, uuid)
        assert.match(file.created_at, iso)
        assert.deepStrictEqual([file.account_id, file.created_by_user_id, file.file_artifact_blob_path], [caller.accountId, caller.identityId, null])
      }
      assert.deepStrictEqual(Fs.readFileSync(Path.join(bucket, created[0]!.id), "utf8"), "héllo 😀\n")
      assert.deepStrictEqual(Fs.readFileSync(Path.join(bucket, created[1]!.id), "utf8"), "{\"a\":1}")
      assert.deepStrictEqual(new Uint8Array(Fs.readFileSync(Path.join(bucket, created[2]!.id))), binary)

      // the wire: every field present, the blob path null
      const read = yield* request("GET", `/v4/application-files/${created[0]!.id}`, { key: caller.key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, {
        id: created[0]!.id,
        account_id: caller.accountId,
        created_at: created[0]!.created_at,
        created_by_user_id: caller.identityId,
        file_name: "policy.txt",
        file_size_bytes: Buffer.byteLength("héllo 😀\n"),
        file_artifact_blob_path: null
      })
      const page = yield* caller.client.applicationFiles.list({ urlParams: {} })
      assert.deepStrictEqual([page.total_item_count, page.items.map((file) => file.id).sort()], [3, created.map((file) => file.id).sort()])

      // the bytes back, as uploaded, the name in content-disposition
      const downloaded = yield* caller.client.applicationFiles.content({ path: { application_file_id: created[2]!.id } })
      assert.deepStrictEqual(new Uint8Array(downloaded), binary)
      const raw = yield* request("GET", `/v4/application-files/${created[0]!.id}/content`, { key: caller.key })
      assert.deepStrictEqual([raw.status, raw.body, raw.headers["content-type"], raw.headers["content-length"], raw.headers["content-disposition"]], [
        200,
        "héllo 😀\n",
        "application/octet-stream",
        String(Buffer.byteLength("héllo 😀\n")),
        "attachment; filename*=UTF-8''policy.txt"
      ])

      const back = yield* bytesOf(created[1]!.id, [caller.accountId])
      assert.deepStrictEqual([back.file.file_name, back.text], ["data.json", "{\"a\":1}"])
      const foreign = yield* Effect.flip(bytesOf(created[1]!.id, ["another-account"]))
      assert.strictEqual(foreign._tag, "NotFound")
    }))

  it.effect("parts named files (curl's -F files=@…) are read the same; without account_id the caller's account; other parts are ignored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const data = form([{ name: "a.md", content: "# A" }, { name: "b.md", content: "" }], "files")
      data.append("note", "ignored")
      data.append("other", new Blob(["ignored too"]), "other.txt")
      const created = yield* caller.client.applicationFiles.upload({ urlParams: {}, payload: data })
      assert.deepStrictEqual(created.map((file) => [file.file_name, file.file_size_bytes, file.account_id]), [
        ["a.md", 3, caller.accountId],
        ["b.md", 0, caller.accountId]
      ])
      assert.strictEqual(Fs.readFileSync(Path.join(bucket, created[0]!.id), "utf8"), "# A")
    }))

  it.effect("no file, a files part that is a text field, a body that is no form: 422 at body.files; nothing stored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const before = stored()
      const none = yield* Effect.flip(caller.client.applicationFiles.upload({ urlParams: {}, payload: new FormData() }))
      assert.strictEqual(none._tag, "ValidationError")
      assert.deepStrictEqual((none as any).detail.map((issue: any) => [issue.loc.join("."), issue.type]), [["body.files", "missing"]])

      // a file written, then a text field named files: the whole request is refused, the file removed
      const mixed = form([{ name: "ok.txt", content: "fine" }])
      mixed.append("files[]", "just text")
      const refused = yield* Effect.flip(caller.client.applicationFiles.upload({ urlParams: {}, payload: mixed }))
      assert.deepStrictEqual((refused as any).detail.map((issue: any) => [issue.loc.join("."), issue.type]), [["body.files", "value_error"]])

      const json = yield* request("POST", "/v4/applications/upload-files", { key: caller.key, body: "{}" })
      assert.strictEqual(json.status, 422)
      assert.deepStrictEqual(issues(json), [{ loc: ["body", "files"], type: "value_error" }])

      assert.deepStrictEqual(stored(), before)
      assert.strictEqual((yield* caller.client.applicationFiles.list({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("another account's account_id: 403, nothing stored; another account's file: 404; delete removes the row and the bytes", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const [file] = yield* alice.client.applicationFiles.upload({ urlParams: {}, payload: form([{ name: "a.txt", content: "alice" }]) })
      const before = stored()
      const forbidden = yield* Effect.flip(bob.client.applicationFiles.upload({
        urlParams: { account_id: alice.accountId },
        payload: form([{ name: "x.txt", content: "bob" }, { name: "y.txt", content: "bob" }])
      }))
      assert.strictEqual(forbidden._tag, "Forbidden")
      assert.deepStrictEqual(stored(), before)
      assert.strictEqual((yield* request("GET", `/v4/application-files?account_id=${alice.accountId}`, { key: bob.key })).status, 403)
      assert.strictEqual((yield* request("GET", `/v4/application-files/${file!.id}`)).status, 401)

      for (const [method, target] of [["GET", ""], ["GET", "/content"], ["DELETE", ""]] as const) {
        const foreign = yield* request(method, `/v4/application-files/${file!.id}${target}`, { key: bob.key })
        assert.strictEqual(foreign.status, 404)
        assert.deepStrictEqual(foreign.body, { detail: `Application file ${file!.id} not found` })
      }
      assert.strictEqual((yield* bob.client.applicationFiles.list({ urlParams: {} })).total_item_count, 0)

      const deleted = yield* alice.client.applicationFiles.delete({ path: { application_file_id: file!.id } })
      assert.deepStrictEqual({ ...deleted }, { count: 1, success: true })
      assert.isFalse(stored().includes(file!.id))
      assert.strictEqual((yield* Effect.flip(alice.client.applicationFiles.get({ path: { application_file_id: file!.id } })))._tag, "NotFound")
    }))

  it.effect("list: every account of the caller, paged, narrowed by account_id", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const caller = yield* provision()
      const second = yield* accounts.createAccount()
      yield* accounts.addMember(caller.identityId, second)
      // several accounts: account_id is needed, and names one of them
      const unnamed = yield* Effect.flip(caller.client.applicationFiles.upload({ urlParams: {}, payload: form([{ name: "a", content: "a" }]) }))
      assert.deepStrictEqual((unnamed as any).detail.map((issue: any) => issue.loc.join(".")), ["query.account_id"])
      yield* caller.client.applicationFiles.upload({ urlParams: { account_id: caller.accountId }, payload: form([{ name: "first", content: "1" }]) })
      yield* caller.client.applicationFiles.upload({ urlParams: { account_id: second }, payload: form([{ name: "second", content: "2" }]) })
      const all = yield* caller.client.applicationFiles.list({ urlParams: {} })
      assert.deepStrictEqual(all.items.map((file) => file.file_name).sort(), ["first", "second"])
      const narrowed = yield* caller.client.applicationFiles.list({ urlParams: { account_id: second } })
      assert.deepStrictEqual(narrowed.items.map((file) => file.file_name), ["second"])
      const paged = yield* caller.client.applicationFiles.list({ urlParams: { page: 2, limit: 1 } })
      assert.deepStrictEqual([paged.items.length, paged.total_item_count, paged.current_page], [1, 2, 2])
    }))
})
