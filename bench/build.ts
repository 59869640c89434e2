/**
 * Builds the three servers the benchmark runs into single ES modules under `.bench/build`, the way a
 * deployment would ship them: the kit's own entry point (`packages/server/src/bin.ts`, what
 * `npm start` runs through tsx), the Fastify peer and the `node:http` ceiling; and the load
 * generator's process, so that starting it costs no TypeScript transform. Each is one bundle
 * with a source map (for the CPU profile); better-sqlite3 stays external (a native addon).
 *
 * esbuild is the one tsx already installs and runs on; nothing extra is added for it.
 */
import * as esbuild from "esbuild"
import * as Path from "node:path"

export interface Built {
  readonly kit: string
  readonly fastify: string
  readonly ceiling: string
  /** The load generator's process (autocannon stays in node_modules). */
  readonly load: string
}

const root = Path.resolve(import.meta.dirname, "..")

export const build = async (outDir: string): Promise<Built> => {
  const entries = {
    kit: Path.join(root, "packages/server/src/bin.ts"),
    fastify: Path.join(root, "bench/fastify-server.ts"),
    ceiling: Path.join(root, "bench/ceiling-server.ts"),
    load: Path.join(root, "bench/load.ts")
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
    kit: Path.join(outDir, "kit.mjs"),
    fastify: Path.join(outDir, "fastify.mjs"),
    ceiling: Path.join(outDir, "ceiling.mjs"),
    load: Path.join(outDir, "load.mjs")
  }
}
