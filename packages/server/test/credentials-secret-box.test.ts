/**
 * The encryption at rest of credential secrets (`SecretBox`), on its own: the cipher, the key from
 * `PLATFORM_SECRET_KEY`, and the key file next to a database on a temporary directory.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { keyFileFor, makeSecretBox, parseKey, SecretBox } from "../src/credentials/SecretBox.js"
import { temporaryDirectory } from "../src/testDatabase.js"

const tempDir = temporaryDirectory("secret-box")

/** Runs `f` with a SecretBox built from `layer` (a fresh build each time: a restart). */
const withBox = <A, E>(layer: Layer.Layer<SecretBox, E>, f: (box: SecretBox["Type"]) => Effect.Effect<A>) =>
  Effect.flatMap(SecretBox, f).pipe(Effect.provide(layer))

const fromEnv = (env: Record<string, string>) =>
  SecretBox.Live.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

describe("SecretBox", () => {
  it.effect("round trip; a fresh IV every time; bound to its context; tampering is detected", () =>
    Effect.gen(function*() {
      const box = makeSecretBox(Crypto.randomBytes(32))
      const one = yield* box.encrypt("hunter2 ✓", "credential-1")
      const two = yield* box.encrypt("hunter2 ✓", "credential-1")
      assert.notStrictEqual(one, two)
      assert.notInclude(one, "hunter2")
      assert.strictEqual(yield* box.decrypt(one, "credential-1"), "hunter2 ✓")
      assert.strictEqual(yield* box.decrypt(two, "credential-1"), "hunter2 ✓")
      assert.strictEqual(yield* box.decrypt(yield* box.encrypt("", "c"), "c"), "")

      // sealed for another credential, or altered, or under another key: it does not open
      assert.isTrue(Exit.isFailure(yield* Effect.exit(box.decrypt(one, "credential-2"))))
      const bytes = Buffer.from(one.slice(3), "base64")
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1
      assert.isTrue(Exit.isFailure(yield* Effect.exit(box.decrypt(`v1.${bytes.toString("base64")}`, "credential-1"))))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(box.decrypt("garbage", "credential-1"))))
      const other = makeSecretBox(Crypto.randomBytes(32))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(other.decrypt(one, "credential-1"))))
    }))

  it.effect("without PLATFORM_SECRET_KEY, a key file is created once next to the database, mode 0600", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const databaseUrl = `sqlite:${Path.join(dir, "nested", "platform.db")}`
      const keyFile = Path.join(dir, "nested", "secret.key")
      assert.strictEqual(keyFileFor(databaseUrl), keyFile)
      assert.isFalse(Fs.existsSync(keyFile))

      const layer = SecretBox.layer({ databaseUrl, secretKey: Option.none() })
      const sealed = yield* withBox(layer, (box) => box.encrypt("persisted", "c1"))
      assert.isTrue(Fs.existsSync(keyFile))
      assert.strictEqual(Fs.statSync(keyFile).mode & 0o777, 0o600)
      const text = Fs.readFileSync(keyFile, "utf8")
      assert.strictEqual(Buffer.from(text.trim(), "base64").length, 32)
      assert.deepStrictEqual(Fs.readdirSync(Path.join(dir, "nested")), ["secret.key"])

      // a restart reads the same key and leaves the file alone
      const opened = yield* withBox(layer, (box) => box.decrypt(sealed, "c1"))
      assert.strictEqual(opened, "persisted")
      assert.strictEqual(Fs.readFileSync(keyFile, "utf8"), text)

      // several starting at once agree on one key
      const boxes = yield* Effect.forEach(
        Array.from({ length: 5 }, () => SecretBox.layer({ databaseUrl: `sqlite:${Path.join(dir, "race", "db")}`, secretKey: Option.none() })),
        (l) => withBox(l, (box) => box.encrypt("x", "c")),
        { concurrency: 5 }
      )
      const raceKey = Fs.readFileSync(Path.join(dir, "race", "secret.key"), "utf8")
      for (const s of boxes) assert.strictEqual(yield* makeSecretBox(Buffer.from(raceKey.trim(), "base64")).decrypt(s, "c"), "x")
      assert.deepStrictEqual(Fs.readdirSync(Path.join(dir, "race")), ["secret.key"])
    }).pipe(Effect.scoped))

  it.effect("a key file that is not a key stops the start with an error naming it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      Fs.writeFileSync(Path.join(dir, "secret.key"), "not a key", { mode: 0o600 })
      const exit = yield* Effect.exit(
        withBox(SecretBox.layer({ databaseUrl: `sqlite:${Path.join(dir, "db")}`, secretKey: Option.none() }), () => Effect.void)
      )
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const message = String(exit.cause._tag === "Fail" ? exit.cause.error.message : exit.cause)
        assert.include(message, Path.join(dir, "secret.key"))
        assert.include(message, "expected 32 bytes")
      }
    }).pipe(Effect.scoped))

  it.effect("an in-memory database gets an ephemeral key: no file, and another start cannot open its values", () =>
    Effect.gen(function*() {
      const layer = SecretBox.layer({ databaseUrl: "sqlite::memory:", secretKey: Option.none() })
      const sealed = yield* withBox(layer, (box) => box.encrypt("temp", "c"))
      assert.strictEqual(yield* withBox(layer, (box) => Effect.exit(box.decrypt(sealed, "c"))).pipe(Effect.map(Exit.isFailure)), true)
      assert.isUndefined(keyFileFor("sqlite::memory:"))
      const postgres = yield* Effect.exit(
        withBox(SecretBox.layer({ databaseUrl: "postgres://db/platform", secretKey: Option.none() }), () => Effect.void)
      )
      assert.isTrue(Exit.isFailure(postgres))
    }))

  it.effect("PLATFORM_SECRET_KEY: hex or base64 of 32 bytes, the same key either way; anything else is a clear start error", () =>
    Effect.gen(function*() {
      const key = Crypto.randomBytes(32)
      const dir = yield* tempDir
      const databaseUrl = `sqlite:${Path.join(dir, "platform.db")}`
      const sealed = yield* withBox(
        fromEnv({ PLATFORM_SECRET_KEY: key.toString("hex"), DATABASE_URL: databaseUrl }),
        (box) => box.encrypt("configured", "c")
      )
      for (const text of [key.toString("base64"), key.toString("base64url"), ` ${key.toString("hex").toUpperCase()}\n`]) {
        const opened = yield* withBox(fromEnv({ PLATFORM_SECRET_KEY: text, DATABASE_URL: databaseUrl }), (box) =>
          box.decrypt(sealed, "c"))
        assert.strictEqual(opened, "configured")
      }
      // a configured key means no key file
      assert.isFalse(Fs.existsSync(Path.join(dir, "secret.key")))

      for (const bad of ["short", Crypto.randomBytes(16).toString("base64"), "z".repeat(64), ""]) {
        const exit = yield* Effect.exit(withBox(fromEnv({ PLATFORM_SECRET_KEY: bad, DATABASE_URL: databaseUrl }), () => Effect.void))
        assert.isTrue(Exit.isFailure(exit), bad)
        if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
          const message = String(exit.cause.error)
          assert.include(message, "PLATFORM_SECRET_KEY")
          assert.include(message, "32 bytes")
        }
      }
      assert.isTrue(Exit.isFailure(yield* Effect.exit(withBox(fromEnv({ PLATFORM_SECRET_KEY: "short" }), () => Effect.void))))
    }).pipe(Effect.scoped))

  it("parseKey names what is wrong", () => {
    assert.deepStrictEqual(parseKey("00".repeat(32)).pipe((e) => e._tag), "Right")
    const left = parseKey(Buffer.alloc(31).toString("base64"))
    assert.strictEqual(left._tag, "Left")
    if (left._tag === "Left") assert.include(left.left, "got 31 bytes")
  })
})
