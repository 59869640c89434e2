/**
 * Builds the three servers the benchmark runs into ES modules under `.bench/build`, the way a
 * deployment would ship them: the kit exactly as `npm run build` / `npm start` build it
 * (scripts/build.mjs: `packages/server/src/bin.ts` with code splitting, under `kit/`), the Fastify
 * peer, the `node:http` ceiling, a constant model upstream and the bare proxy in front of it; and
 * the load generator's and the stream subscribers' processes, so that starting it costs no
 * TypeScript transform. Each has a source map (for the CPU profile); better-sqlite3 stays
 * external (a native addon).
 *
 * esbuild is the kit's pinned devDependency (the same version tsx runs on).
 */
import * as esbuild from "esbuild"
import * as Path from "node:path"
import { buildServer } from "../scripts/build.mjs"

export interface Built {
  readonly kit: string
  readonly fastify: string
  readonly ceiling: string
  /** The load generator's process (autocannon stays in node_modules). */
  readonly load: string
  /** A constant OpenAI-compatible upstream (the execution benchmark). */
  readonly upstream: string
  /** The bare `node:http` + undici proxy to that upstream (the execution benchmark's floor). */
  readonly proxy: string
  /** The subscribers of the task-stream benchmark, in a process of their own. */
  readonly subscribers: string
}

const root = Path.resolve(import.meta.dirname, "..")

export const build = async (outDir: string): Promise<Built> => {
  const kit = await buildServer(Path.join(outDir, "kit"))
  const entries = {
    fastify: Path.join(root, "bench/fastify-server.ts"),
    ceiling: Path.join(root, "bench/ceiling-server.ts"),
    load: Path.join(root, "bench/load.ts"),
    upstream: Path.join(root, "bench/upstream-server.ts"),
    proxy: Path.join(root, "bench/proxy-server.ts"),
    subscribers: Path.join(root, "bench/stream-subscribers.ts")
  }
  await esbuild.build({
    entryPoints: entries,
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    minify: false,
    legalComments: "none",
    logLevel: "warning",
    external: ["better-sqlite3", "msgpackr-extract", "@parcel/watcher", "autocannon"],
    // bundled CommonJS dependencies call require(): give the ES module one
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" }
  })
  return {
    kit,
    fastify: Path.join(outDir, "fastify.mjs"),
    ceiling: Path.join(outDir, "ceiling.mjs"),
    load: Path.join(outDir, "load.mjs"),
    upstream: Path.join(outDir, "upstream.mjs"),
    proxy: Path.join(outDir, "proxy.mjs"),
    subscribers: Path.join(outDir, "subscribers.mjs")
  }
}
