import { afterAll, assert, describe, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import type { Build } from "@platform-kit/schema"
import { Effect, Either, Fiber, Option, TestClock, TestServices } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Zlib from "node:zlib"
import { tarGzReader } from "../src/builds/archive.js"
import { eventually, isoPattern as iso, issues, provision, request, serverPort, uuidPattern as uuid } from "../src/testing.js"
import { serverWith } from "./support/progression.js"

/** The build contexts' limit here (64 KiB), over the general body limit (4 KiB) on purpose. */
const maxBytes = 64 * 1024
const adminKey = "admin-secret-for-builds"
const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "builds-"))
afterAll(() => Fs.rmSync(root, { recursive: true, force: true }))
const own = Path.join(root, ".platform")

/** The objects of the builds' bucket, and what a failed write would leave (partial writes). */
const stored = () => {
  const bucket = Path.join(own, "builds")
  const objects = Fs.existsSync(bucket)
    ? Fs.readdirSync(bucket, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name)
    : []
  const partial = Fs.existsSync(own) ? Fs.readdirSync(own).filter((name) => name.startsWith(".partial-")) : []
  return [...objects, ...partial].sort()
}

/** Waits until build `id`'s context is no longer in the store (removed once the build has ended); fails the test otherwise. */
const contextRemoved = (id: string) =>
  Effect.map(
    eventually(Effect.sync(() => Option.liftPredicate(stored(), (names) => !names.includes(`${id}.tar.gz`))), 10_000),
    (names) => assert.isTrue(Option.isSome(names), `the context of build ${id} is removed`)
  )

/** One tar entry (ustar): its 512-byte header, its bytes, padded to 512. */
const tarEntry = (name: string, content: string | Buffer, type = "0") => {
  const bytes = typeof content === "string" ? Buffer.from(content) : content
  const header = Buffer.alloc(512)
  header.write(name, 0, 100, "utf8")
  header.write("0000644\0", 100, "latin1")
  header.write("0000000\0", 108, "latin1")
  header.write("0000000\0", 116, "latin1")
  header.write(`${bytes.length.toString(8).padStart(11, "0")}\0`, 124, "latin1")
  header.write(`${(1767225600).toString(8).padStart(11, "0")}\0`, 136, "latin1")
  header.write("        ", 148, "latin1")
  header.write(type, 156, "latin1")
  header.write("ustar\0" + "00", 257, "latin1")
  let sum = 0
  for (const byte of header) sum += byte
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1")
  return Buffer.concat([header, bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512)])
}

/** A tar.gz of `files` (name → content), folders as `name/` with no content. */
const tarGz = (files: Record<string, string | Buffer>) =>
  Zlib.gzipSync(Buffer.concat([
    ...Object.entries(files).map(([name, content]) => name.endsWith("/") ? tarEntry(name, "", "5") : tarEntry(name, content)),
    Buffer.alloc(1024)
  ]))

const dockerfile = [
  "# an app",
  "ARG NODE_VERSION=20",
  "FROM node:${NODE_VERSION}-slim",
  "WORKDIR /app",
  "COPY package.json index.js ./",
  "RUN npm ci \\",
  "  --omit=dev",
  "CMD [\"node\", \"index.js\"]"
].join("\n")

const context = () => tarGz({ "./": "", "./Dockerfile": dockerfile, "./package.json": "{\"name\":\"app\"}", "./index.js": "console.log('hi')\n" })

/** The create's form: the archive as `context_archive`, and the fields. */
const form = (archive: Uint8Array, fields: Record<string, string> = { image_name: "team/app" }, filename = "context.tar.gz") => {
  const data = new FormData()
  data.append("context_archive", new Blob([archive], { type: "application/gzip" }), filename)
  for (const [key, value] of Object.entries(fields)) data.append(key, value)
  return data
}

/** `POST /v5/builds` on the wire: status and JSON body. */
const post = (key: string, body: FormData, query = "") =>
  Effect.gen(function*() {
    const port = yield* serverPort
    return yield* Effect.promise(async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v5/builds${query}`, { method: "POST", headers: { "x-api-key": key }, body })
      return { status: response.status, body: await response.json() as any }
    })
  })

/** `GET /v5/builds/{id}/logs` read to its end: status, content type, the raw text and the lines of its frames. */
const logs = (key: string, id: string) =>
  Effect.gen(function*() {
    const port = yield* serverPort
    return yield* Effect.promise(async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v5/builds/${id}/logs`, { headers: { "x-api-key": key } })
      const text = await response.text()
      const frames = text.split("\n\n").filter((frame) => frame !== "")
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        text,
        frames,
        lines: frames.map((frame) => frame.startsWith("data: ") ? (JSON.parse(frame.slice(6)) as { line: string }).line : `not a data frame: ${frame}`)
      }
    })
  })

const getBuild = (key: string, id: string) => Effect.map(request("GET", `/v5/builds/${id}`, { key }), (response) => response.body as Build)

/** The build read until `done`, each status seen once, in order. */
const pollUntil = (key: string, id: string, done: (build: Build) => boolean) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    let last: Build | undefined
    yield* eventually(
      Effect.map(getBuild(key, id), (build) => {
        last = build
        if (seen.at(-1) !== build.status) seen.push(build.status)
        return Option.liftPredicate(build, done)
      }),
      15_000
    )
    return { build: last!, seen }
  })

const ended = (build: Build) => ["success", "failed", "cancelled"].includes(build.status)

const admin = (method: "PATCH" | "POST" | "GET", path: string, body?: unknown) =>
  Effect.map(request(method, path, { headers: { "x-admin-key": adminKey }, ...(body === undefined ? {} : { body }) }), (response) => {
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body
  })

/** Waits until build `id` has a step parked, then advances it; answers the step's name. */
const advance = (id: string) =>
  Effect.gen(function*() {
    const parked = yield* eventually(
      Effect.map(admin("GET", "/admin/parked-steps"), (steps: Array<any>) => Option.fromNullable(steps.find((step) => step.id === id))),
      10_000
    )
    assert.isTrue(Option.isSome(parked), `a step of build ${id} parked`)
    yield* admin("POST", "/admin/parked-steps/advance", { lifecycle: "build", id })
    return Option.getOrThrow(parked).step as string
  })

const server = serverWith({
  PLATFORM_OBJECT_STORE_ROOT: root,
  PLATFORM_FILE_MAX_BYTES: String(maxBytes),
  PLATFORM_MAX_BODY_BYTES: "4096",
  PLATFORM_ADMIN_KEY: adminKey
})

layer(server)("builds", (it) => {
  it.effect("create: the build queued, every field on the wire; it runs to success; its log, streamed, walks the Dockerfile and ends with the build", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const created = yield* post(caller.key, form(context(), { image_name: "team/app", build_args: "{\"NODE_VERSION\":\"22\",\"UNUSED\":\"x\"}" }))
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const id = created.body.build_id
      assert.match(id, uuid)
      assert.match(created.body.created_at, iso)
      assert.deepStrictEqual(created.body, {
        id,
        build_id: id,
        account_id: caller.accountId,
        created_at: created.body.created_at,
        created_by: { id: caller.identityId, type: "user", object: "identity" },
        image_name: "team/app",
        image_tag: "latest",
        image_url: `registry.platform-kit.local/${caller.accountId}/team/app:latest`,
        status: "queued",
        build_start_time: null,
        build_end_time: null,
        object: "agentex_cloud_build"
      })

      const { build, seen } = yield* pollUntil(caller.key, id, ended)
      assert.deepStrictEqual(seen, ["queued", "running", "success"].filter((status) => seen.includes(status)))
      assert.strictEqual(build.status, "success")
      assert.match(build.build_start_time!, iso)
      assert.match(build.build_end_time!, iso)
      assert.deepStrictEqual({ ...build, status: "queued", build_start_time: null, build_end_time: null }, created.body)
      assert.deepStrictEqual(yield* caller.client.builds.get({ path: { build_id: id } }), build)

      const log = yield* logs(caller.key, id)
      const unpacked = dockerfile.length + "{\"name\":\"app\"}".length + "console.log('hi')\n".length
      assert.deepStrictEqual([log.status, log.type], [200, "text/event-stream"])
      // data frames only: no `event:` line, no `[DONE]` (the v5 SDK would choke on either)
      assert.isTrue(log.frames.every((frame) => /^data: \{"line":.*\}$/s.test(frame)), log.text)
      assert.deepStrictEqual(log.lines, [
        `Build context received: ${context().length} bytes (a tar.gz); build queued`,
        `Build ${id} started: registry.platform-kit.local/${caller.accountId}/team/app:latest`,
        "This is a simulated image build: the build context is read and checked, and its Dockerfile walked through; nothing is pulled, run, built or pushed",
        `Build context: 3 files and 1 folders, ${unpacked} bytes unpacked (${context().length} bytes as uploaded)`,
        "Dockerfile: 6 instructions",
        "Step 1/6 : ARG NODE_VERSION=20",
        " ---> would take the build argument (simulated)",
        // instructions as written: a build argument's value is never in the log
        "Step 2/6 : FROM node:${NODE_VERSION}-slim",
        " ---> would pull the base image node:${NODE_VERSION}-slim (simulated)",
        "Step 3/6 : WORKDIR /app",
        " ---> would set the image's workdir (simulated)",
        "Step 4/6 : COPY package.json index.js ./",
        ` ---> would copy from the build context (3 files, ${unpacked} bytes) into a new layer (simulated)`,
        "Step 5/6 : RUN npm ci --omit=dev",
        " ---> would run in a container of the image so far: npm ci --omit=dev (simulated)",
        "Step 6/6 : CMD [\"node\", \"index.js\"]",
        " ---> would set the image's default command (simulated)",
        "[Warning] One or more build-args [UNUSED] were not consumed",
        `Would tag the image as ${build.image_url} and push it (simulated: nothing was built or pushed)`,
        `Successfully built ${build.image_url} (simulated)`
      ])
      // the build has ended: its context is removed
      yield* contextRemoved(id)
      // an ended build: cancel changes nothing, answered 202 as it is
      const cancel = yield* request("POST", `/v5/builds/${id}/cancel`, { key: caller.key })
      assert.deepStrictEqual([cancel.status, cancel.body], [202, build])
    }))

  it.effect("a context the builder cannot build: no Dockerfile, a COPY of what is not there, no FROM; each failed, the reason its last log line", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const cases = [
        [tarGz({ "app/index.js": "1" }), "Build failed: The build context has no Dockerfile at its root"],
        [tarGz({ Dockerfile: "FROM alpine\nCOPY missing.txt /x\n" }), "Build failed: COPY failed: missing.txt is not in the build context"],
        [tarGz({ Dockerfile: "RUN echo hi\n" }), "Build failed: The Dockerfile must start with FROM (after ARGs)"],
        [tarGz({ Dockerfile: "FROM alpine\nFETCH it\n" }), "Build failed: The Dockerfile has an unknown instruction: FETCH"]
      ] as const
      for (const [archive, reason] of cases) {
        const created = yield* post(caller.key, form(archive, { image_name: "broken", image_tag: "v1.2" }))
        assert.strictEqual(created.status, 200)
        assert.strictEqual(created.body.image_tag, "v1.2")
        const { build } = yield* pollUntil(caller.key, created.body.id, ended)
        assert.strictEqual(build.status, "failed")
        assert.match(build.build_end_time!, iso)
        const log = yield* logs(caller.key, build.id)
        assert.strictEqual(log.lines.at(-1), reason)
        yield* contextRemoved(build.id)
      }
    }))

  it.effect("a body that is not a tar.gz, a bad field, too large: 422 (or 413) before anything is stored; what the platform takes is taken", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const before = stored()
      /** What the store holds that it did not before (another test's contexts may go meanwhile). */
      const added = () => stored().filter((name) => !before.includes(name))
      const total = () => Effect.map(caller.client.builds.list({ urlParams: {} }), (page) => page.total)
      const refused = [
        [form(Buffer.from("just text, not gzip")), "Not a tar.gz archive (no gzip header)"],
        [form(Zlib.gzipSync(Buffer.from("gzip of text, not tar ".repeat(40)))), "Not a tar archive (the gzip data inside is not tar: no valid tar header)"],
        [form(context().subarray(0, 40)), "Not a tar.gz archive (gzip: unexpected end of file)"],
        [form(Zlib.gzipSync(Buffer.alloc(1024))), "The build context is empty (a tar archive without entries)"],
        [form(Zlib.gzipSync(tarEntry("Dockerfile", "FROM alpine\n".repeat(100)).subarray(0, 700))), "The tar archive is truncated (it ends inside an entry)"]
      ] as const
      for (const [body, msg] of refused) {
        const response = yield* post(caller.key, body)
        assert.deepStrictEqual([response.status, response.body.detail.map((each: any) => [each.loc, each.msg])], [422, [[["body", "context_archive"], msg]]])
      }
      const fields = yield* post(caller.key, form(context(), { image_name: "", image_tag: "-x", build_args: "{not json" }))
      assert.deepStrictEqual([fields.status, fields.body.detail.map((each: any) => [each.loc[1], each.type])], [422, [
        ["image_name", "string_too_short"],
        ["image_tag", "string_pattern_mismatch"],
        ["build_args", "json_invalid"]
      ]])
      const long = yield* post(caller.key, form(context(), { image_name: "x".repeat(256), build_args: "[\"N\"]" }))
      assert.deepStrictEqual([long.status, long.body.detail.map((each: any) => [each.loc[1], each.type])], [422, [
        ["image_name", "string_too_long"],
        ["build_args", "dict_type"]
      ]])
      const missing = yield* post(caller.key, form(context(), {}))
      assert.deepStrictEqual([missing.status, missing.body.detail.map((each: any) => [each.loc[1], each.type])], [422, [["image_name", "missing"]]])
      const noArchive = new FormData()
      noArchive.append("image_name", "a")
      const none = yield* post(caller.key, noArchive)
      assert.deepStrictEqual([none.status, none.body.detail.map((each: any) => [each.loc[1], each.type])], [422, [["context_archive", "missing"]]])

      // over the limit (random bytes do not compress): 413, over the general body limit it is not
      const big = tarGz({ Dockerfile: "FROM alpine\n", "blob.bin": Buffer.from(Array.from({ length: maxBytes + 1024 }, () => Math.floor(Math.random() * 256))) })
      const tooLarge = yield* post(caller.key, form(big))
      assert.deepStrictEqual([tooLarge.status, tooLarge.body], [413, { detail: `Build context larger than ${maxBytes} bytes (PLATFORM_FILE_MAX_BYTES)` }])
      assert.deepStrictEqual(added(), [])
      assert.strictEqual(yield* total(), 0)
      const underLimit = yield* post(caller.key, form(tarGz({ Dockerfile: "FROM alpine\n", "pad.txt": "x".repeat(8000) })))
      assert.strictEqual(underLimit.status, 200)
      assert.strictEqual(yield* total(), 1)
      // stored (unless the build has ended and removed it already)
      assert.includeMembers([`${underLimit.body.id}.tar.gz`], added())
      yield* pollUntil(caller.key, underLimit.body.id, ended)

      // an image name is a plain string (a registry's host and port, upper case: as sent); the
      // values of build_args that are not strings are taken as their JSON text (`1`, `true`)
      const plain = yield* post(caller.key, form(
        tarGz({ Dockerfile: "FROM alpine\nARG N\nCOPY dir${N}/x.txt /x\n", "dir1/x.txt": "x" }),
        { image_name: "localhost:5000/Team/App", build_args: "{\"N\":1,\"B\":true}" }
      ))
      assert.deepStrictEqual([plain.status, plain.body.image_name, plain.body.image_url], [
        200,
        "localhost:5000/Team/App",
        `registry.platform-kit.local/${caller.accountId}/localhost:5000/Team/App:latest`
      ])
      const { build } = yield* pollUntil(caller.key, plain.body.id, ended)
      const log = yield* logs(caller.key, build.id)
      // `dir${N}` found as dir1: N is "1"
      assert.strictEqual(build.status, "success", log.lines.join("\n"))
      assert.include(log.lines, "[Warning] One or more build-args [B] were not consumed")
    }))

  it.effect("a build argument's value is never in the log, nor in clear in the database", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const secret = "s3cr3t-Value-42"
      const instructions = "ARG TOKEN\nFROM alpine:${TOKEN}\nENV T=$TOKEN\nLABEL t=\"${TOKEN}\"\nRUN echo $TOKEN\nCOPY ${TOKEN}.txt /x\nCOPY ${TOKEN}.missing /y\n"
      const created = yield* post(caller.key, form(
        tarGz({ Dockerfile: instructions, [`${secret}.txt`]: "x" }),
        { image_name: "secretive", build_args: JSON.stringify({ TOKEN: secret }) }
      ))
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const { build } = yield* pollUntil(caller.key, created.body.id, ended)
      const log = yield* logs(caller.key, build.id)
      // instructions as written; the first COPY found its source (the value used), the second's
      // missing one said as written
      assert.strictEqual(build.status, "failed")
      assert.include(log.lines, "Step 3/7 : ENV T=$TOKEN")
      assert.deepStrictEqual(log.lines.slice(-4), [
        "Step 6/7 : COPY ${TOKEN}.txt /x",
        ` ---> would copy from the build context (2 files, ${instructions.length + 1} bytes) into a new layer (simulated)`,
        "Step 7/7 : COPY ${TOKEN}.missing /y",
        "Build failed: COPY failed: ${TOKEN}.missing is not in the build context"
      ])
      assert.notInclude(log.text, secret)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT * FROM builds WHERE id = ${build.id}`
      assert.strictEqual(rows.length, 1)
      assert.notInclude(JSON.stringify(rows), secret)
    }))

  it.effect("list: every build with `id`, the v5 cursor forward and back, sort by image_name; another account's builds are a 404 and never listed", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const ids: Array<string> = []
      for (const name of ["c-app", "a-app", "b-app"]) {
        // one millisecond apart (the suite's clock is a TestClock)
        yield* TestClock.adjust("1 millis")
        const created = yield* post(alice.key, form(context(), { image_name: name }))
        ids.push(created.body.id)
      }
      const bobs = yield* post(bob.key, form(context(), { image_name: "bob-app" }))
      for (const id of ids) yield* pollUntil(alice.key, id, ended)
      yield* pollUntil(bob.key, bobs.body.id, ended)

      const all = yield* alice.client.builds.list({ urlParams: {} })
      assert.deepStrictEqual([all.total, all.has_more, all.limit, all.object], [3, false, 100, "list"])
      assert.isTrue(all.items.every((build) => build.id === build.build_id && build.status === "success"))
      const page1 = yield* alice.client.builds.list({ urlParams: { limit: 2, sort_by: "image_name", sort_order: "asc" } })
      assert.deepStrictEqual([page1.items.map((build) => build.image_name), page1.has_more], [["a-app", "b-app"], true])
      const page2 = yield* alice.client.builds.list({ urlParams: { limit: 2, sort_by: "image_name", sort_order: "asc", starting_after: page1.items[1]!.id } })
      assert.deepStrictEqual([page2.items.map((build) => build.image_name), page2.has_more], [["c-app"], false])
      const back = yield* alice.client.builds.list({ urlParams: { limit: 2, sort_by: "image_name", sort_order: "asc", ending_before: page2.items[0]!.id } })
      assert.deepStrictEqual(back.items.map((build) => build.image_name), ["a-app", "b-app"])
      const newest = yield* alice.client.builds.list({ urlParams: { limit: 1 } })
      assert.strictEqual(newest.items[0]!.id, ids[2])

      // bob's build is not alice's: 404 on every path, never listed
      for (const [method, path] of [["GET", ""], ["POST", "/cancel"], ["GET", "/logs"]] as const) {
        const response = yield* request(method, `/v5/builds/${bobs.body.id}${path}`, { key: alice.key })
        assert.deepStrictEqual([response.status, response.body], [404, { detail: `Build ${bobs.body.id} not found` }])
      }
      assert.isFalse(all.items.some((build) => build.id === bobs.body.id))
      const unknown = yield* request("GET", `/v5/builds?starting_after=${bobs.body.id}`, { key: alice.key })
      assert.deepStrictEqual([unknown.status, issues(unknown)], [422, [{ loc: ["query", "starting_after"], type: "value_error" }]])
    }))

  it.effect("manual progression: a poller sees queued, running, success in turn; the log streams while it runs and ends with it; a cancel is 202 and final", () =>
    Effect.gen(function*() {
      yield* admin("PATCH", "/admin/controls", { progression: "manual" })
      const caller = yield* provision()
      const created = yield* post(caller.key, form(context(), { image_name: "slow" }))
      const id = created.body.id
      const seen: Array<string> = [(yield* getBuild(caller.key, id)).status]
      // the log followed from the start, on its own fiber
      const following = yield* Effect.fork(logs(caller.key, id))
      assert.strictEqual(yield* advance(id), "queue")
      const running = yield* pollUntil(caller.key, id, (build) => build.status !== "queued")
      seen.push(running.build.status)
      assert.match(running.build.build_start_time!, iso)
      assert.isNull(running.build.build_end_time)
      // the context is kept while the build has not ended
      assert.include(stored(), `${id}.tar.gz`)
      assert.strictEqual(yield* advance(id), "build")
      const done = yield* pollUntil(caller.key, id, ended)
      seen.push(done.build.status)
      assert.deepStrictEqual(seen, ["queued", "running", "success"])
      yield* contextRemoved(id)
      const log = yield* Fiber.join(following)
      assert.strictEqual(log.lines[0], `Build context received: ${context().length} bytes (a tar.gz); build queued`)
      assert.strictEqual(log.lines.at(-1), `Successfully built ${done.build.image_url} (simulated)`)
      assert.deepStrictEqual(log.lines, (yield* logs(caller.key, id)).lines)

      // cancelled while queued, and while running: 202, cancelled at once, the workflow ends
      for (const steps of [0, 1]) {
        const other = (yield* post(caller.key, form(context(), { image_name: "cancelled" }))).body.id
        for (let step = 0; step < steps; step++) yield* advance(other)
        if (steps === 1) yield* pollUntil(caller.key, other, (build) => build.status === "running")
        assert.include(stored(), `${other}.tar.gz`)
        const cancel = yield* request("POST", `/v5/builds/${other}/cancel`, { key: caller.key })
        assert.deepStrictEqual([cancel.status, cancel.body.status], [202, "cancelled"])
        // removed by the cancel, the workflow still parked
        assert.notInclude(stored(), `${other}.tar.gz`)
        assert.match(cancel.body.build_end_time, iso)
        assert.deepStrictEqual(yield* getBuild(caller.key, other), cancel.body)
        const again = yield* request("POST", `/v5/builds/${other}/cancel`, { key: caller.key })
        assert.deepStrictEqual([again.status, again.body], [202, cancel.body])
        const log = yield* logs(caller.key, other)
        assert.strictEqual(log.lines.at(-1), `Build cancelled (it was ${steps === 0 ? "queued" : "running"})`)
        // the parked step advanced: the lifecycle finds the build cancelled and moves nothing
        yield* advance(other)
        yield* TestServices.provideLive(Effect.sleep("300 millis"))
        assert.strictEqual((yield* getBuild(caller.key, other)).status, "cancelled")
      }
      yield* admin("PATCH", "/admin/controls", { progression: "immediate" })
    }))

  it.effect("a fault rule for builds: the build fails with the rule's reason", () =>
    Effect.gen(function*() {
      yield* admin("PATCH", "/admin/controls", { lifecycle_faults: [{ lifecycle: "build", share: 1, reason: "builder out of disk" }] })
      const caller = yield* provision()
      const created = yield* post(caller.key, form(context(), { image_name: "faulty" }))
      const { build } = yield* pollUntil(caller.key, created.body.id, ended)
      assert.strictEqual(build.status, "failed")
      assert.strictEqual((yield* logs(caller.key, build.id)).lines.at(-1), "Build failed: builder out of disk")
      // failed before it started: the context removed all the same
      yield* contextRemoved(build.id)
      yield* admin("PATCH", "/admin/controls", { lifecycle_faults: [] })
    }))
})

describe("the archive reader", () => {
  /** `archive` fed to a reader in chunks of `size` bytes: its summary, or why not. */
  const read = (archive: Buffer, size: number, maxUnpacked?: number) =>
    Effect.gen(function*() {
      const reader = tarGzReader(maxUnpacked)
      for (let at = 0; at < archive.length; at += size) yield* reader.feed(archive.subarray(at, at + size))
      return yield* reader.finish
    }).pipe(Effect.either)

  it.effect("GNU long names and pax paths, read in chunks of any size; what it keeps; a gzip bomb stops at the limit", () =>
    Effect.gen(function*() {
      const long = `${"deep/".repeat(30)}file.txt`
      const pax = `${"pax/".repeat(40)}Dockerfile.other`
      const paxRecord = (key: string, value: string) => {
        const body = ` ${key}=${value}\n`
        let length = body.length + 1
        while (String(length).length + body.length !== length) length = String(length).length + body.length
        return `${length}${body}`
      }
      const archive = Zlib.gzipSync(Buffer.concat([
        tarEntry("./", "", "5"),
        tarEntry("././@LongLink", `${long}\0`, "L"),
        tarEntry(long.slice(0, 99), "long"),
        tarEntry("PaxHeader", paxRecord("path", pax), "x"),
        tarEntry("short", "pax"),
        tarEntry("./Dockerfile", "FROM alpine\n"),
        tarEntry("link", "", "2"),
        Buffer.alloc(1024),
        // a writer's padding after the end: not read
        Buffer.alloc(4096, 7)
      ]))
      for (const size of [5, 511, 512, 513, 100_000]) {
        const summary = yield* read(archive, size)
        assert.deepStrictEqual(Either.map(summary, (s) => ({ ...s })), Either.right({
          files: 3,
          fileBytes: 4 + 3 + 12,
          directories: 1,
          others: 1,
          names: [long, pax, "Dockerfile", "link"],
          allNamed: true,
          dockerfile: "FROM alpine\n"
        }), `chunks of ${size}`)
      }
      const bomb = Zlib.gzipSync(Buffer.concat([tarEntry("zeros", Buffer.alloc(1024 * 1024)), Buffer.alloc(1024)]))
      assert.deepStrictEqual(
        Either.mapLeft(yield* read(bomb, 4096, 64 * 1024), (error) => error.reason),
        Either.left(`The build context unpacks to over ${64 * 1024} bytes`)
      )
      const corrupt = Buffer.concat([tarEntry("a", "x"), tarEntry("b", "y")])
      corrupt[512 + 512 + 10] = 0x41
      assert.deepStrictEqual(
        Either.mapLeft(yield* read(Zlib.gzipSync(corrupt), 64), (error) => error.reason),
        Either.left("Not a tar archive: the header of entry 2 has a wrong checksum")
      )
    }))
})
