/**
 * Encryption at rest for credential secrets: AES-256-GCM (node:crypto), a random 12-byte IV per
 * value, stored as `v1.` + base64(iv ‖ tag ‖ ciphertext). The value is bound to what it belongs to
 * (the credential id, as additional authenticated data), so a sealed secret copied onto another
 * row does not open.
 *
 * The key is `PLATFORM_SECRET_KEY` (32 bytes, as 64 hex characters or as base64). Without it, the
 * key lives in a file next to the database (`sqlite:<dir>/x.db` → `<dir>/secret.key`, base64, mode
 * 0600), created once on first start; an in-memory database gets an ephemeral random key. The key
 * is resolved when the layer is built, so a bad key stops the server at start with a clear error.
 */
import { Config, ConfigError, Context, Data, Effect, Either, Layer, Option, Redacted } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DatabaseUrl } from "../config.js"

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const VERSION = "v1."

/** A key file that cannot be read, written or decoded; the message names the file. */
export class SecretKeyFileError extends Data.TaggedError("SecretKeyFileError")<{
  readonly path: string
  readonly reason: string
}> {
  override get message() {
    return `Secret key file ${this.path}: ${this.reason}`
  }
}

/**
 * A 32-byte key from its text form: 64 hex characters, or base64 (standard or URL-safe, padding
 * optional). Anything else is refused with what was wrong.
 */
export const parseKey = (text: string): Either.Either<Buffer, string> => {
  const trimmed = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Either.right(Buffer.from(trimmed, "hex"))
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    return Either.left("expected 32 bytes as 64 hex characters or as base64")
  }
  const bytes = Buffer.from(trimmed, "base64")
  return bytes.length === KEY_BYTES
    ? Either.right(bytes)
    : Either.left(`expected 32 bytes as 64 hex characters or as base64, got ${bytes.length} bytes of base64`)
}

/** `PLATFORM_SECRET_KEY`, validated; none when unset. */
export const SecretKeyConfig: Config.Config<Option.Option<Buffer>> = Config.option(
  Config.redacted("PLATFORM_SECRET_KEY").pipe(
    Config.mapOrFail((value) =>
      Either.mapLeft(
        parseKey(Redacted.value(value)),
        (reason) => ConfigError.InvalidData(["PLATFORM_SECRET_KEY"], `PLATFORM_SECRET_KEY: ${reason}`)
      )
    )
  )
)

/** Where the key file of a `DATABASE_URL` lives; `undefined` for an in-memory database. */
export const keyFileFor = (databaseUrl: string): string | undefined => {
  if (!databaseUrl.startsWith("sqlite:")) return undefined
  const filename = databaseUrl.slice("sqlite:".length).replace(/^\/\//, "")
  if (filename === ":memory:" || filename === "") return undefined
  return Path.join(Path.dirname(Path.resolve(filename)), "secret.key")
}

const fsyncDirectory = (dir: string) => {
  try {
    const fd = Fs.openSync(dir, "r")
    try {
      Fs.fsyncSync(fd)
    } finally {
      Fs.closeSync(fd)
    }
  } catch {
    // not every platform can fsync a directory; the file itself is synced
  }
}

/**
 * Reads the key file, creating it first if there is none. Creation is atomic: the key is written
 * and synced to a private temporary file that is then hard-linked into place, so two processes
 * starting together agree on one key and a reader never sees a half-written file.
 */
export const loadOrCreateKeyFile = (path: string): Effect.Effect<Buffer, SecretKeyFileError> =>
  Effect.gen(function*() {
    const fail = (reason: string) => new SecretKeyFileError({ path, reason })
    const reason = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))
    if (!Fs.existsSync(path)) {
      yield* Effect.try({
        try: () => {
          const dir = Path.dirname(path)
          Fs.mkdirSync(dir, { recursive: true })
          const temporary = `${path}.${Crypto.randomUUID()}.tmp`
          const fd = Fs.openSync(temporary, "wx", 0o600)
          try {
            Fs.writeFileSync(fd, `${Crypto.randomBytes(KEY_BYTES).toString("base64")}\n`)
            Fs.fsyncSync(fd)
          } finally {
            Fs.closeSync(fd)
          }
          Fs.chmodSync(temporary, 0o600)
          try {
            Fs.linkSync(temporary, path)
          } catch (cause) {
            if ((cause as { code?: unknown }).code !== "EEXIST") throw cause
            // another process created it first: use theirs
          } finally {
            Fs.unlinkSync(temporary)
          }
          fsyncDirectory(dir)
        },
        catch: (cause) => fail(`cannot create it: ${reason(cause)}`)
      })
    }
    const text = yield* Effect.try({ try: () => Fs.readFileSync(path, "utf8"), catch: (cause) => fail(reason(cause)) })
    const mode = Fs.statSync(path).mode & 0o777
    if ((mode & 0o077) !== 0) {
      yield* Effect.logWarning(`Secret key file ${path} is readable by others (mode ${mode.toString(8)}); use 0600`)
    }
    return yield* Either.mapLeft(parseKey(text), fail)
  })

export interface SecretBoxService {
  /** Seals `plaintext` for `context` (what it belongs to, e.g. the credential id). */
  readonly encrypt: (plaintext: string, context: string) => Effect.Effect<string>
  /** Opens a sealed value; a value sealed for another context, or tampered with, is a defect. */
  readonly decrypt: (sealed: string, context: string) => Effect.Effect<string>
}

/** Encrypt/decrypt with one 32-byte key. */
export const makeSecretBox = (key: Uint8Array): SecretBoxService => {
  if (key.length !== KEY_BYTES) throw new Error(`A secret key is ${KEY_BYTES} bytes, got ${key.length}`)
  const keyBuffer = Buffer.from(key)
  return {
    encrypt: (plaintext, context) =>
      Effect.sync(() => {
        const iv = Crypto.randomBytes(IV_BYTES)
        const cipher = Crypto.createCipheriv("aes-256-gcm", keyBuffer, iv)
        cipher.setAAD(Buffer.from(context, "utf8"))
        const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
        return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64")
      }),
    decrypt: (sealed, context) =>
      Effect.try(() => {
        if (!sealed.startsWith(VERSION)) throw new Error("unknown sealed secret format")
        const bytes = Buffer.from(sealed.slice(VERSION.length), "base64")
        if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error("sealed secret too short")
        const decipher = Crypto.createDecipheriv("aes-256-gcm", keyBuffer, bytes.subarray(0, IV_BYTES))
        decipher.setAAD(Buffer.from(context, "utf8"))
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8")
      }).pipe(Effect.orDie)
  }
}

/** The key for a configuration: the given key, else the key file of the database, else ephemeral. */
export const resolveKey = (options: {
  readonly databaseUrl: string
  readonly secretKey: Option.Option<Uint8Array>
}): Effect.Effect<Uint8Array, SecretKeyFileError> => {
  if (Option.isSome(options.secretKey)) return Effect.succeed(options.secretKey.value)
  const file = keyFileFor(options.databaseUrl)
  if (file !== undefined) return loadOrCreateKeyFile(file)
  if (options.databaseUrl.startsWith("sqlite:")) return Effect.sync(() => Crypto.randomBytes(KEY_BYTES))
  return Effect.fail(
    new SecretKeyFileError({
      path: "(none)",
      reason: `no key file can live next to "${options.databaseUrl.split(":")[0]}:…"; set PLATFORM_SECRET_KEY`
    })
  )
}

export class SecretBox extends Context.Tag("@platform-kit/server/SecretBox")<SecretBox, SecretBoxService>() {
  /** For given settings (tests, embedding). */
  static readonly layer = (options: { readonly databaseUrl: string; readonly secretKey: Option.Option<Uint8Array> }) =>
    Layer.effect(SecretBox, Effect.map(resolveKey(options), makeSecretBox))

  /** From `PLATFORM_SECRET_KEY` and `DATABASE_URL`. */
  static readonly Live = Layer.unwrapEffect(
    Effect.gen(function*() {
      const secretKey = yield* SecretKeyConfig
      const databaseUrl = yield* DatabaseUrl
      return SecretBox.layer({ databaseUrl, secretKey })
    })
  )
}
