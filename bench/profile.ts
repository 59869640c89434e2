/**
 * Reads a V8 CPU profile (`node --cpu-prof`) of the bundled kit server and says where the time
 * went: self time per function, mapped back through the bundle's source map to the original file
 * (`node_modules/effect/src/…`, `packages/server/src/…`), and the same summed per package.
 */
import * as Fs from "node:fs"
import { SourceMap } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
  readonly startTime: number
  readonly endTime: number
}

export interface SelfTime {
  readonly name: string
  readonly where: string
  readonly bucket: string
  readonly ms: number
  readonly share: number
}

export interface ProfileSummary {
  /** Wall time the profile covers, and the part of it spent outside `(idle)`. */
  readonly totalMs: number
  readonly busyMs: number
  readonly functions: ReadonlyArray<SelfTime>
  /** Total (self + callees) time of the kit's own functions and of chosen library entry points. */
  readonly inclusive: ReadonlyArray<SelfTime>
  readonly buckets: ReadonlyArray<{ readonly bucket: string; readonly ms: number; readonly share: number }>
}

const root = Path.resolve(import.meta.dirname, "..")

/** Which part of the stack a source file belongs to. */
const bucketOf = (source: string, name: string, url: string): string => {
  if (url === "") {
    if (name === "(garbage collector)") return "V8 garbage collector"
    if (name === "(program)") return "V8 / native (program)"
    if (name === "(idle)") return "(idle)"
    return "native (V8 builtins, better-sqlite3, libuv)"
  }
  if (url.startsWith("node:")) return `node internals (${url.replace(/^node:internal\//, "").split("/")[0]})`
  const modules = source.lastIndexOf("node_modules/")
  if (modules >= 0) {
    const rest = source.slice(modules + "node_modules/".length).split("/")
    const pkg = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!
    if (pkg === "effect") return `effect/${rest.slice(2).join("/").replace(/\.ts$/, "")}`
    return pkg
  }
  const pkg = /packages\/([^/]+)\/src\/(.*)$/.exec(source)
  if (pkg !== null) return `@platform-kit/${pkg[1]} (${pkg[2]!.split("/")[0]})`
  return Path.relative(root, source) || url
}

/**
 * Self time per function and per part of the stack. With `window` (µs on the monotonic clock, as
 * V8 stamps its samples), only the samples inside it count: the measured run, not start-up.
 */
export const summarize = (
  profileFile: string,
  options: { readonly top?: number; readonly window?: { readonly fromUs: number; readonly toUs: number } } = {}
): ProfileSummary => {
  const top = options.top ?? 30
  const profile = JSON.parse(Fs.readFileSync(profileFile, "utf8")) as CpuProfile
  const maps = new Map<string, SourceMap | undefined>()
  const mapFor = (url: string) => {
    if (!maps.has(url)) {
      let map: SourceMap | undefined
      if (url.startsWith("file://")) {
        const file = fileURLToPath(url)
        if (Fs.existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(Fs.readFileSync(`${file}.map`, "utf8")))
      }
      maps.set(url, map)
    }
    return maps.get(url)
  }
  const self = new Map<number, number>()
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!
    const delta = profile.timeDeltas[i] ?? 0
    at += delta
    if (options.window !== undefined && (at < options.window.fromUs || at > options.window.toUs)) continue
    self.set(id, (self.get(id) ?? 0) + delta)
  }
  const located = new Map<number, { name: string; where: string; bucket: string; source: string }>()
  const locate = (node: ProfileNode) => {
    const known = located.get(node.id)
    if (known !== undefined) return known
    const frame = node.callFrame
    let source = frame.url
    let line = frame.lineNumber
    const map = frame.url === "" ? undefined : mapFor(frame.url)
    if (map !== undefined && frame.lineNumber >= 0) {
      const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number }
      if (entry.originalSource !== undefined) {
        source = entry.originalSource.startsWith("file://")
          ? fileURLToPath(entry.originalSource)
          : Path.resolve(Path.dirname(fileURLToPath(frame.url)), entry.originalSource)
        line = entry.originalLine ?? line
      }
    }
    const name = frame.functionName === "" ? "(anonymous)" : frame.functionName
    const where = source === "" ? "" : `${Path.relative(root, source).replace(/^node_modules\//, "")}:${line + 1}`
    const bucket = bucketOf(source, name, frame.url)
    const made = { name, where, bucket, source }
    located.set(node.id, made)
    return made
  }
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

  const byFunction = new Map<string, { name: string; where: string; bucket: string; us: number }>()
  const inclusive = new Map<string, { name: string; where: string; bucket: string; us: number }>()
  const byBucket = new Map<string, number>()
  let totalUs = 0
  let idleUs = 0
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0
    if (us === 0) continue
    totalUs += us
    if (node.callFrame.functionName === "(idle)") {
      idleUs += us
      continue
    }
    const { name, where, bucket } = locate(node)
    const key = `${name}@${where}`
    // every distinct kit function on the stack of these samples gets their time once
    const seen = new Set<string>()
    for (let at: number | undefined = node.id; at !== undefined; at = parent.get(at)) {
      const frame = locate(byId.get(at)!)
      const ours = /packages\/[^/]+\/src\//.test(frame.source)
      const k = `${frame.name}@${frame.where}`
      if (!ours || seen.has(k)) continue
      seen.add(k)
      const total = inclusive.get(k) ?? { ...frame, us: 0 }
      total.us += us
      inclusive.set(k, total)
    }
    const entry = byFunction.get(key) ?? { name, where, bucket, us: 0 }
    entry.us += us
    byFunction.set(key, entry)
    byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + us)
  }
  const busyUs = totalUs - idleUs
  const functions = [...byFunction.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map((f) => ({ name: f.name, where: f.where, bucket: f.bucket, ms: f.us / 1000, share: f.us / busyUs }))
  const inclusiveTop = [...inclusive.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, 15)
    .map((f) => ({ name: f.name, where: f.where, bucket: f.bucket, ms: f.us / 1000, share: f.us / busyUs }))
  const buckets = [...byBucket.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([bucket, us]) => ({ bucket, ms: us / 1000, share: us / busyUs }))
  return { totalMs: totalUs / 1000, busyMs: busyUs / 1000, functions, inclusive: inclusiveTop, buckets }
}

const pct = (share: number) => `${(share * 100).toFixed(1)} %`

export const profileMarkdown = (summary: ProfileSummary, topBuckets = 20): string =>
  [
    `Profile: ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${(summary.busyMs / 1000).toFixed(1)} s busy (not idle). Shares are of the busy time.`,
    "",
    "| self time | share | function | where | part |",
    "|---:|---:|---|---|---|",
    ...summary.functions.map((f) => `| ${f.ms.toFixed(0)} ms | ${pct(f.share)} | \`${f.name}\` | ${f.where} | ${f.bucket} |`),
    "",
    "The kit's own functions, total time (self + everything they call):",
    "",
    "| total time | share | function | where |",
    "|---:|---:|---|---|",
    ...summary.inclusive.map((f) => `| ${f.ms.toFixed(0)} ms | ${pct(f.share)} | \`${f.name}\` | ${f.where} |`),
    "",
    "| part of the stack | self time | share |",
    "|---|---:|---:|",
    ...summary.buckets.slice(0, topBuckets).map((b) => `| ${b.bucket} | ${b.ms.toFixed(0)} ms | ${pct(b.share)} |`)
  ].join("\n")
