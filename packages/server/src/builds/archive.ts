/**
 * A build context read as it streams (docs/builds.md "The archive"): a tar.gz fed chunk by chunk,
 * never whole in memory. The bytes go through node's gunzip (driven by hand, so the caller's
 * stream keeps its own pace) into a small reader of tar's 512-byte headers: each header's
 * checksum, size and type are checked, an entry's bytes skipped (or kept, for the few the builder
 * reads: the `Dockerfile`, GNU long names, pax paths). What is not gzip, not tar, truncated, empty
 * or unpacking past `maxUnpackedBytes` fails with `ArchiveInvalid` and its reason. Nothing is
 * written anywhere: "unpacking" here is reading every entry.
 *
 * The upload checks the archive with it as it is stored (a bad one is a 422 and nothing is
 * stored); the simulated builder reads it again from the store for its Dockerfile and names.
 */
import { Data, Effect } from "effect"
import * as Zlib from "node:zlib"

/** Why the bytes are not a usable build context. */
export class ArchiveInvalid extends Data.TaggedError("ArchiveInvalid")<{ readonly reason: string }> {}

/** What a read archive holds. */
export interface ArchiveSummary {
  /** Regular files, and their bytes unpacked. */
  readonly files: number
  readonly fileBytes: number
  readonly directories: number
  /** Links and other entries (devices, fifos). */
  readonly others: number
  /** Every entry's name (normalized: no leading `./` or `/`), up to `maxNames`. */
  readonly names: ReadonlyArray<string>
  /** Whether `names` is every name. */
  readonly allNamed: boolean
  /** The text of the `Dockerfile` at the root, when there is one (its first `maxDockerfileBytes`). */
  readonly dockerfile: string | undefined
}

/** The most names a summary keeps (what the builder's COPY checks look at). */
const maxNames = 100_000
/** The most of a Dockerfile kept. */
export const maxDockerfileBytes = 256 * 1024
/** The most of a GNU long name or a pax header kept (more is refused). */
const maxMetaBytes = 64 * 1024
/** The default limit of the unpacked bytes (a gzip bomb stops here). */
export const defaultMaxUnpackedBytes = 1024 * 1024 * 1024

const block = 512

/** A name as the context's root sees it: without `./` and `/` in front, nor a trailing `/`. */
export const normalizeName = (name: string) => name.replace(/^(\.\/|\/)+/, "").replace(/\/+$/, "")

/** An octal field (NUL or space terminated), or a base-256 one (its first byte's high bit set). */
const numberField = (header: Buffer, start: number, length: number): number => {
  if ((header[start]! & 0x80) !== 0) {
    let value = header[start]! & 0x7f
    for (let i = start + 1; i < start + length; i++) value = value * 256 + header[i]!
    return value
  }
  const text = header.toString("latin1", start, start + length).replace(/[\0 ]+$/, "").replace(/^[\0 ]+/, "")
  if (text === "") return 0
  return /^[0-7]+$/.test(text) ? parseInt(text, 8) : Number.NaN
}

const textField = (header: Buffer, start: number, length: number) => {
  const end = header.indexOf(0, start)
  return header.toString("utf8", start, end === -1 || end > start + length ? start + length : end)
}

/** The `path` of a pax extended header (`<length> <key>=<value>\n` records), if it has one. */
const paxPath = (records: Buffer): string | undefined => {
  let path: string | undefined
  let at = 0
  while (at < records.length) {
    const space = records.indexOf(0x20, at)
    if (space === -1) break
    const length = Number(records.toString("latin1", at, space))
    if (!Number.isInteger(length) || length <= 0 || at + length > records.length) break
    const record = records.toString("utf8", space + 1, at + length - 1)
    const equals = record.indexOf("=")
    if (equals !== -1 && record.slice(0, equals) === "path") path = record.slice(equals + 1)
    at += length
  }
  return path
}

type Kept = "dockerfile" | "longName" | "pax" | undefined

/** The tar reader: 512-byte headers, then each entry's bytes and padding; throws `ArchiveInvalid`. */
class TarReader {
  private readonly header = Buffer.alloc(block)
  private headerFill = 0
  private remaining = 0
  private padding = 0
  private kept: Kept = undefined
  private keptChunks: Array<Buffer> = []
  private keptBytes = 0
  private zeroBlocks = 0
  private ended = false
  private entryNumber = 0
  private pendingName: string | undefined
  private files = 0
  private fileBytes = 0
  private directories = 0
  private others = 0
  private readonly names: Array<string> = []
  private dockerfile: string | undefined

  push(chunk: Buffer) {
    let at = 0
    while (at < chunk.length) {
      // what follows the end-of-archive blocks (a writer's padding to its record size) is not read
      if (this.ended) return
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, chunk.length - at)
        if (this.kept !== undefined) this.keep(chunk.subarray(at, at + n))
        this.remaining -= n
        at += n
        if (this.remaining === 0) this.entryDone()
      } else if (this.padding > 0) {
        const n = Math.min(this.padding, chunk.length - at)
        this.padding -= n
        at += n
      } else {
        const n = Math.min(block - this.headerFill, chunk.length - at)
        chunk.copy(this.header, this.headerFill, at, at + n)
        this.headerFill += n
        at += n
        if (this.headerFill === block) {
          this.headerFill = 0
          this.onHeader()
        }
      }
    }
  }

  finish(): ArchiveSummary {
    if (!this.ended && (this.remaining > 0 || this.padding > 0 || this.headerFill > 0)) {
      throw new ArchiveInvalid({ reason: "The tar archive is truncated (it ends inside an entry)" })
    }
    if (this.files + this.directories + this.others === 0) {
      throw new ArchiveInvalid({ reason: "The build context is empty (a tar archive without entries)" })
    }
    return {
      files: this.files,
      fileBytes: this.fileBytes,
      directories: this.directories,
      others: this.others,
      names: this.names,
      allNamed: this.files + this.directories + this.others <= maxNames,
      dockerfile: this.dockerfile
    }
  }

  private keep(bytes: Buffer) {
    const limit = this.kept === "dockerfile" ? maxDockerfileBytes : maxMetaBytes
    if (this.keptBytes + bytes.length > limit) {
      if (this.kept !== "dockerfile") throw new ArchiveInvalid({ reason: `A tar extended header over ${maxMetaBytes} bytes` })
      bytes = bytes.subarray(0, Math.max(0, limit - this.keptBytes))
    }
    // copied: the chunk's buffer is gunzip's, reused after this call
    if (bytes.length > 0) this.keptChunks.push(Buffer.from(bytes))
    this.keptBytes += bytes.length
  }

  private onHeader() {
    const header = this.header
    if (header.every((byte) => byte === 0)) {
      this.zeroBlocks += 1
      if (this.zeroBlocks === 2) this.ended = true
      return
    }
    this.entryNumber += 1
    if (this.zeroBlocks > 0) throw new ArchiveInvalid({ reason: `Not a tar archive: a header after an empty block (entry ${this.entryNumber})` })
    const stored = numberField(header, 148, 8)
    let unsigned = 0
    let signed = 0
    for (let i = 0; i < block; i++) {
      const byte = i >= 148 && i < 156 ? 0x20 : header[i]!
      unsigned += byte
      signed += byte > 127 ? byte - 256 : byte
    }
    if (Number.isNaN(stored) || (stored !== unsigned && stored !== signed)) {
      throw new ArchiveInvalid({
        reason: this.entryNumber === 1
          ? "Not a tar archive (the gzip data inside is not tar: no valid tar header)"
          : `Not a tar archive: the header of entry ${this.entryNumber} has a wrong checksum`
      })
    }
    const size = numberField(header, 124, 12)
    if (Number.isNaN(size) || size < 0) throw new ArchiveInvalid({ reason: `Not a tar archive: entry ${this.entryNumber} has no valid size` })
    const type = String.fromCharCode(header[156]!)
    const ustar = header.toString("latin1", 257, 262) === "ustar"
    const prefix = ustar ? textField(header, 345, 155) : ""
    const ownName = textField(header, 0, 100)
    const name = normalizeName(this.pendingName ?? (prefix === "" ? ownName : `${prefix}/${ownName}`))
    this.remaining = size
    this.padding = (block - (size % block)) % block
    this.keptChunks = []
    this.keptBytes = 0
    this.kept = undefined
    if (type === "L" || type === "x") {
      this.kept = type === "L" ? "longName" : "pax"
    } else if (type === "K" || type === "g") {
      // a long link name, global pax records: nothing the builder reads
    } else {
      this.pendingName = undefined
      if (type === "0" || type === "\0" || type === "7") {
        this.files += 1
        this.fileBytes += size
        if (name === "Dockerfile") this.kept = "dockerfile"
      } else if (type === "5") {
        this.directories += 1
      } else {
        this.others += 1
      }
      if (this.names.length < maxNames && name !== "") this.names.push(name)
    }
    if (size === 0) this.entryDone()
  }

  private entryDone() {
    const content = Buffer.concat(this.keptChunks)
    if (this.kept === "longName") {
      const end = content.indexOf(0)
      this.pendingName = content.toString("utf8", 0, end === -1 ? content.length : end)
    } else if (this.kept === "pax") {
      this.pendingName = paxPath(content) ?? this.pendingName
    } else if (this.kept === "dockerfile") {
      this.dockerfile = content.toString("utf8")
    }
    this.kept = undefined
    this.keptChunks = []
  }
}

/**
 * A reader of one tar.gz: `feed` each chunk in order, then `finish` for the summary (or
 * `close` to stop early). Fails with `ArchiveInvalid` at the first chunk that shows the problem.
 */
export const tarGzReader = (maxUnpackedBytes = defaultMaxUnpackedBytes) => {
  const tar = new TarReader()
  const gunzip = Zlib.createGunzip()
  let failure: ArchiveInvalid | undefined
  let compressed = 0
  let unpacked = 0
  let first: number | undefined
  const fail = (error: ArchiveInvalid) => {
    failure ??= error
    gunzip.destroy()
  }
  gunzip.on("data", (chunk: Buffer) => {
    if (failure !== undefined) return
    unpacked += chunk.length
    if (unpacked > maxUnpackedBytes) return fail(new ArchiveInvalid({ reason: `The build context unpacks to over ${maxUnpackedBytes} bytes` }))
    try {
      tar.push(chunk)
    } catch (error) {
      fail(error instanceof ArchiveInvalid ? error : new ArchiveInvalid({ reason: String(error) }))
    }
  })
  gunzip.on("error", (error) => {
    failure ??= new ArchiveInvalid({
      reason: first !== 0x1f ? "Not a tar.gz archive (no gzip header)" : `Not a tar.gz archive (gzip: ${error.message})`
    })
  })

  const feed = (chunk: Uint8Array): Effect.Effect<void, ArchiveInvalid> =>
    Effect.async<void, ArchiveInvalid>((resume) => {
      if (failure !== undefined) return resume(Effect.fail(failure))
      if (chunk.length === 0) return resume(Effect.void)
      if (compressed === 0) {
        first = chunk[0]
        if (chunk[0] !== 0x1f || (chunk.length > 1 && chunk[1] !== 0x8b)) {
          fail(new ArchiveInvalid({ reason: "Not a tar.gz archive (no gzip header)" }))
          return resume(Effect.fail(failure!))
        }
      }
      compressed += chunk.length
      gunzip.write(chunk, () => resume(failure === undefined ? Effect.void : Effect.fail(failure)))
    })

  const finish: Effect.Effect<ArchiveSummary, ArchiveInvalid> = Effect.async<ArchiveSummary, ArchiveInvalid>((resume) => {
    if (failure !== undefined) return resume(Effect.fail(failure))
    if (compressed === 0) return resume(Effect.fail(new ArchiveInvalid({ reason: "The build context archive is empty (no bytes)" })))
    let answered = false
    // after `end` (read to its end) or `close` (after an error, or `close` first): once
    const done = () => {
      if (answered) return
      answered = true
      if (failure !== undefined) return resume(Effect.fail(failure))
      try {
        resume(Effect.succeed(tar.finish()))
      } catch (error) {
        resume(Effect.fail(error instanceof ArchiveInvalid ? error : new ArchiveInvalid({ reason: String(error) })))
      }
    }
    gunzip.once("end", done)
    gunzip.once("close", done)
    gunzip.end()
  })

  const close = Effect.sync(() => gunzip.destroy())

  return { feed, finish, close } as const
}
