/**
 * Secrets stay secret:
 *
 * - the real server (`packages/server/src/bin.ts`, as `npm start` runs it) on a SQLite file: after
 *   keys, credential secrets (revealed with an `Idempotency-Key` too) and failing requests (401,
 *   422, a forced 500) went through it, neither the database files (WAL included) nor the server's
 *   output hold a plain API key or a credential secret;
 * - an unexpected failure (a defect: here a table gone from under the repository) answers exactly
 *   `{"detail":"Internal Server Error"}` — no SQL, no stack — and is logged with its request id.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Logger, Redacted } from "effect"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { Accounts } from "../src/auth/Accounts.js"
import { jsonRequest, makeWire, serverWire, TestServerLive, type Wire } from "../src/testing.js"

const root = Path.resolve(import.meta.dirname, "../../..")

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as Net.AddressInfo
      server.close(() => resolve(address.port))
    })
  })

/** The server as `npm start` runs it, on `dir`'s SQLite file, with everything it prints collected. */
const startServer = (dir: string, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const port = await freePort()
      const output: Array<string> = []
      const child = ChildProcess.spawn(
        process.execPath,
        ["--import", "tsx", Path.join(root, "packages/server/src/bin.ts")],
        {
          cwd: root,
          env: { ...process.env, ...env, DATABASE_URL: `sqlite:${Path.join(dir, "platform.db")}`, PORT: String(port), HOST: "127.0.0.1" },
          stdio: ["ignore", "pipe", "pipe"]
        }
      )
      child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")))
      child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")))
      const wire = makeWire(port)
      for (let i = 0;; i++) {
        if (child.exitCode !== null) throw new Error(`the server exited: ${output.join("")}`)
        const up = await wire.send({ method: "GET", target: "/health" }).then((r) => r.status === 200, () => false)
        if (up) break
        if (i > 600) throw new Error(`the server did not start: ${output.join("")}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      return { child, wire, output }
    }),
    ({ child }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve()
          const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
          child.once("exit", () => {
            clearTimeout(timer)
            resolve()
          })
          child.kill("SIGTERM")
        })
      )
  )

/** Every file under `dir`, read as bytes and as text. */
const filesOf = (dir: string): Array<{ readonly name: string; readonly bytes: Buffer }> =>
  Fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const name = Path.join(entry.parentPath, entry.name)
      return { name, bytes: Fs.readFileSync(name) }
    })

const send = (wire: Wire, method: string, target: string, key: string | undefined, body?: unknown) =>
  Effect.promise(() => wire.send(jsonRequest(method, target, key, body)))

describe("secrets at rest and in the logs", () => {
  it.live("the database files and the server's output hold no plain API key and no credential secret", () =>
    Effect.gen(function*() {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "platform-secrets-"))
      const key = `pk_${Crypto.randomBytes(24).toString("base64url")}`
      const wrongKey = `pk_${Crypto.randomBytes(24).toString("base64url")}`
      const secrets = Array.from({ length: 5 }, (_, i) => `secret-${i}-${Crypto.randomBytes(12).toString("hex")}`)
      const accountId = Crypto.randomUUID()
      yield* Effect.scoped(Effect.gen(function*() {
        const { output, wire } = yield* startServer(dir, { PLATFORM_API_KEY: key, PLATFORM_ACCOUNT_ID: accountId })
        // a credential, read back, renamed with a new secret, its secret read through its endpoint
        const created = yield* send(wire, "POST", "/v5/credentials", key, { name: "db", type: "key", payload: secrets[0] })
        assert.strictEqual(created.status, 200, created.text)
        assert.notInclude(created.text, secrets[0]!)
        const id = created.json.id as string
        const updated = yield* send(wire, "PATCH", `/v5/credentials/${id}`, key, { payload: secrets[1] })
        assert.strictEqual(updated.status, 200, updated.text)
        for (const target of [`/v5/credentials/${id}`, "/v5/credentials", "/v5/credentials/name/db"]) {
          const read = yield* send(wire, "GET", target, key)
          assert.strictEqual(read.status, 200, read.text)
          for (const secret of secrets) assert.notInclude(read.text, secret)
        }
        // revealed with an Idempotency-Key (the idempotency table keeps no secret), then rotated:
        // a retry with the same key answers the new secret, never the old one
        const reveal = (target: string, idempotencyKey: string) =>
          Effect.promise(() => wire.send(jsonRequest("POST", target, key, undefined, { "idempotency-key": idempotencyKey })))
        const revealed = yield* reveal(`/v5/credentials/${id}/secret`, "reveal-by-id")
        assert.strictEqual(revealed.json?.result, secrets[1])
        const revealedByName = yield* reveal("/v5/credentials/name/db/secret", "reveal-by-name")
        assert.strictEqual(revealedByName.json?.result, secrets[1])
        const rotated = yield* send(wire, "PATCH", `/v5/credentials/${id}`, key, { payload: secrets[4] })
        assert.strictEqual(rotated.status, 200, rotated.text)
        assert.strictEqual((yield* reveal(`/v5/credentials/${id}/secret`, "reveal-by-id")).json?.result, secrets[4])
        assert.strictEqual((yield* reveal("/v5/credentials/name/db/secret", "reveal-by-name")).json?.result, secrets[4])
        // failures that carry a key or a secret: an unknown key, a body that does not validate
        assert.strictEqual((yield* send(wire, "GET", "/v5/credentials", wrongKey)).status, 401)
        const invalid = yield* send(wire, "POST", "/v5/credentials", key, { name: 5, type: "t", payload: secrets[2] })
        assert.strictEqual(invalid.status, 422)
        // an unexpected failure while a secret is in flight: the credentials table moved away under the server
        const client = yield* SqliteClient.make({ filename: Path.join(dir, "platform.db") })
        yield* client.unsafe("ALTER TABLE credentials RENAME TO credentials_moved")
        const failed = yield* send(wire, "POST", "/v5/credentials", key, { name: "x", type: "t", payload: secrets[3] })
        assert.strictEqual(failed.status, 500)
        assert.strictEqual(failed.text, "{\"detail\":\"Internal Server Error\"}")
        yield* client.unsafe("ALTER TABLE credentials_moved RENAME TO credentials")
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200))) // let the failure's log line out
        const logs = output.join("")
        assert.include(logs, "request failed", "the 500 is logged")
        for (const needle of [key, wrongKey, ...secrets]) assert.notInclude(logs, needle)
      }))
      // after the server stopped: every file it left (database, WAL, key file)
      const files = filesOf(dir)
      assert.isTrue(files.some((f) => f.name.endsWith("platform.db")))
      for (const file of files) {
        for (const needle of [key, wrongKey, ...secrets]) {
          assert.strictEqual(file.bytes.indexOf(needle), -1, `${Path.basename(file.name)} holds ${needle.slice(0, 12)}…`)
          assert.strictEqual(file.bytes.indexOf(Buffer.from(needle, "utf16le")), -1, `${Path.basename(file.name)} holds ${needle.slice(0, 12)}… (UTF-16)`)
        }
      }
      Fs.rmSync(dir, { recursive: true, force: true })
    }).pipe(Effect.provide(Reactivity.layer)), 120_000)
})

const logged: Array<string> = []
const CaptureLogs = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations, cause, message }) => {
    logged.push(`${String(message)} ${JSON.stringify(Object.fromEntries(annotations))} ${String(cause)}`)
  })
)

layer(TestServerLive.pipe(Layer.provide(CaptureLogs)))("an unexpected failure", (it) => {
  it.effect("answers exactly {\"detail\":\"Internal Server Error\"}, without SQL or stack, and is logged with its request id", () =>
    Effect.gen(function*() {
      const wire = yield* serverWire
      const made = yield* Effect.flatMap(Accounts, (accounts) => accounts.provisionUser())
      const key = Redacted.value(made.key)
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("ALTER TABLE model_groups RENAME TO model_groups_moved")
      for (
        const request of [
          jsonRequest("POST", "/v4/model-groups", key, { name: "g", account_id: made.accountId }, { "x-request-id": "req-create" }),
          jsonRequest("GET", "/v4/model-groups", key, undefined, { "x-request-id": "req-list" })
        ]
      ) {
        const response = yield* Effect.promise(() => wire.send(request))
        assert.strictEqual(response.status, 500)
        assert.strictEqual(response.text, "{\"detail\":\"Internal Server Error\"}")
        assert.strictEqual(response.headers["x-request-id"], request.headers!["x-request-id"])
        assert.isTrue(logged.some((line) => line.startsWith("request failed") && line.includes(request.headers!["x-request-id"]!)), logged.join("\n").slice(0, 2000))
      }
      yield* sql.unsafe("ALTER TABLE model_groups_moved RENAME TO model_groups")
    }))
})
