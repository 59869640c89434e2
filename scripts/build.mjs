#!/usr/bin/env node
/**
 * `npm run build` (and the first half of `npm start`): the standalone server
 * (`packages/server/src/bin.ts`) as ES modules under `dist/server/`: `server.mjs`, the code it
 * loads at start in `chunks/`, and the code it loads only when needed in chunks of their own; and
 * `embeddingWorker.mjs`, the program of the thread an ingestion embeds on (it shares the chunks).
 * Starting the bundle is several times faster than running the TypeScript sources through tsx
 * (docs/benchmarks.md, "Cold start").
 *
 * `--if-changed` (what `npm start` passes) skips the build when `dist/server` is newer than every
 * file the last build read (listed in `dist/server/inputs.json`, from esbuild's metafile), the
 * installed packages (`node_modules/.package-lock.json`), the package and TypeScript configs and
 * this script. A file the last build did not read can only enter the bundle through an import in
 * one it did read, which then is newer.
 *
 * better-sqlite3 (a native addon), and pg's optional native binding, stay in node_modules.
 * Source maps are written next to the bundle; run with `NODE_OPTIONS=--enable-source-maps`
 * for stack traces in the TypeScript sources (it slows the start, so it is not the default).
 *
 * The same build writes the console (`buildConsole`, docs/console.md) into `dist/server/console/`.
 *
 * Two libraries would otherwise load code at start that the server does not run there:
 * - `@effect/platform`'s index re-exports `HttpApiSwagger`, whose module holds the 2 MB of
 *   Swagger UI assets. The server imports it only on the first `GET /docs`
 *   (packages/server/src/http/docs.ts); for esbuild to leave it in a chunk of its own, the
 *   index's re-export (which the server does not use) is replaced by an empty module here.
 * - `@effect/platform-node` re-exports undici (1 MB, about 0.1 s to load and run) for its HTTP
 *   client, which the server does not use; the import is pulled in by its HTTP server module.
 *   Here it is replaced by a module that loads undici on first use (`lazy-undici.mjs`), which
 *   provides the two names the platform's own code uses (`Agent`, `getGlobalDispatcher`).
 * Any other use of either re-export makes esbuild warn, and a warning fails this build.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/** The two replacements described above. */
const startPath = {
  name: "platform-kit-start-path",
  setup(build) {
    build.onResolve({ filter: /^\.\/HttpApiSwagger\.js$/ }, (args) =>
      /[\\/]@effect[\\/]platform[\\/]dist[\\/]esm[\\/]index\.js$/.test(args.importer)
        ? { path: "unused-HttpApiSwagger-re-export", namespace: "platform-kit-empty" }
        : undefined)
    build.onLoad({ filter: /.*/, namespace: "platform-kit-empty" }, () => ({ contents: "export {}", loader: "js" }))
    build.onResolve({ filter: /^undici$/ }, (args) =>
      /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]Undici\.js$/.test(args.importer)
        ? { path: Path.join(root, "scripts/lazy-undici.mjs") }
        : undefined)
  }
}

/**
 * Builds the server into `outDir` and answers the path of its entry module. `quiet` leaves
 * esbuild's own messages out (a warning still fails the build).
 */
export const buildServer = async (outDir = Path.join(root, "dist/server"), options = {}) => {
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    entryPoints: {
      server: Path.join(root, "packages/server/src/bin.ts"),
      // the program of the built-in embeddings' thread, found beside the bundle (knowledge-bases/retrieval/embeddingThread.ts)
      embeddingWorker: Path.join(root, "packages/server/src/knowledge-bases/retrieval/embeddingWorker.ts")
    },
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    metafile: true,
    minify: false,
    legalComments: "none",
    logLevel: options.quiet ? "silent" : "warning",
    external: ["better-sqlite3", "pg-native"],
    // the workspace's packages from their TypeScript sources, not their built `dist` (docs/packages.md)
    conditions: ["@platform-kit/source"],
    plugins: [startPath],
    // bundled CommonJS dependencies call require(): give every ES module of the bundle one
    banner: { js: "import { createRequire as __kitCreateRequire } from 'node:module'; const require = __kitCreateRequire(import.meta.url);" }
  })
  if (result.warnings.length > 0) throw new Error(`build: ${result.warnings.length} esbuild warning(s); see above`)
  const consoleBuild = await buildConsole(Path.join(outDir, "console"), options)
  const inputs = [...Object.keys(result.metafile.inputs), ...consoleBuild.inputs]
    .filter((input) => !input.includes(":")).map((input) => Path.resolve(root, input))
  Fs.writeFileSync(Path.join(outDir, "inputs.json"), JSON.stringify(inputs))
  return Path.join(outDir, "server.mjs")
}

/**
 * The console (docs/console.md): `packages/server/console/main.tsx` (Preact, the kit's client)
 * bundled for the browser into `outDir` (`dist/server/console/`, which the server serves at
 * `/console`, src/console/http.ts): `assets/` with names carrying a hash of their contents, and
 * `index.html` naming them; each script and stylesheet gzipped beside it (`.gz`). Built into a
 * temporary directory then swapped in, so that a running server reads one build or the other.
 * Answers the files esbuild read and the bundle's gzipped size (also in `size.json`, with the
 * minified bytes each package brings).
 */
export const buildConsole = async (outDir = Path.join(root, "dist/server/console"), options = {}) => {
  const esbuild = await import("esbuild")
  const Zlib = await import("node:zlib")
  const temporary = `${outDir}.${process.pid}.tmp`
  Fs.rmSync(temporary, { recursive: true, force: true })
  const result = await esbuild.build({
    entryPoints: { main: Path.join(root, "packages/server/console/main.tsx") },
    outdir: Path.join(temporary, "assets"),
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    sourcemap: "linked",
    metafile: true,
    legalComments: "none",
    jsx: "automatic",
    jsxImportSource: "preact",
    logLevel: options.quiet ? "silent" : "warning",
    conditions: ["@platform-kit/source"]
  })
  if (result.warnings.length > 0) throw new Error(`build: ${result.warnings.length} esbuild warning(s) in the console; see above`)
  const outputs = Object.keys(result.metafile.outputs).map((file) => Path.resolve(root, file))
  const named = (extension) => outputs.map((file) => Path.basename(file)).find((file) => file.endsWith(extension))
  const script = named(".js")
  const style = named(".css")
  Fs.writeFileSync(Path.join(temporary, "index.html"), [
    "<!doctype html>",
    "<html lang=\"en\">",
    "<head>",
    "<meta charset=\"utf-8\">",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    "<title>platform-kit console</title>",
    // no icon of its own: without this line the browser asks for /favicon.ico (a 404)
    "<link rel=\"icon\" href=\"data:,\">",
    style === undefined ? "" : `<link rel="stylesheet" href="/console/assets/${style}">`,
    `<script type="module" src="/console/assets/${script}"></script>`,
    "</head>",
    "<body>",
    "<div id=\"app\"></div>",
    "<noscript>The console needs JavaScript.</noscript>",
    "</body>",
    "</html>",
    ""
  ].join("\n"))
  // each script and stylesheet also compressed (`<name>.gz`), sent to browsers that accept gzip
  let gzipped = 0
  for (const file of outputs.filter((file) => /\.(js|css)$/.test(file))) {
    const compressed = Zlib.gzipSync(Fs.readFileSync(file), { level: 9 })
    Fs.writeFileSync(`${file}.gz`, compressed)
    gzipped += compressed.length
  }
  // what the bundle is made of: the minified bytes of each package (or workspace folder), largest
  // first, from esbuild's metafile (docs/decisions.md "The console" keeps the budget)
  const madeOf = {}
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const owner = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split("/").slice(0, 3).join("/")
      madeOf[owner] = (madeOf[owner] ?? 0) + bytesInOutput
    }
  }
  const minifiedBytesBySource = Object.fromEntries(Object.entries(madeOf).sort((a, b) => b[1] - a[1]))
  Fs.writeFileSync(Path.join(temporary, "size.json"), JSON.stringify({ gzippedBytes: gzipped, minifiedBytesBySource }, null, 2))
  Fs.rmSync(outDir, { recursive: true, force: true })
  Fs.renameSync(temporary, outDir)
  return { inputs: Object.keys(result.metafile.inputs), gzippedBytes: gzipped }
}

/** The admin CLI's bundle: what `platform-kit` runs, in a checkout and in the packed package. */
export const cliDir = Path.join(root, "packages/server/dist/cli")

/**
 * Builds the admin CLI (`packages/server/src/admin/bin.ts`) into one file, `platform-kit.mjs` in
 * `outDir`, with everything it imports but the native addons: one file loads in a fraction of the
 * time the hundreds of modules it is made of take (docs/operations.md "The admin CLI"). Written
 * under a temporary name and renamed, so that two CLI calls building at once never read half a
 * file. Also built by the server package's `prepack`, so an installed package runs it too.
 */
export const buildCli = async (outDir = cliDir) => {
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    entryPoints: [Path.join(root, "packages/server/src/admin/bin.ts")],
    outfile: Path.join(outDir, "platform-kit.mjs"),
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    metafile: true,
    legalComments: "none",
    logLevel: "silent",
    external: ["better-sqlite3", "pg-native"],
    conditions: ["@platform-kit/source"],
    plugins: [startPath],
    banner: { js: "import { createRequire as __kitCreateRequire } from 'node:module'; const require = __kitCreateRequire(import.meta.url);" }
  })
  if (result.warnings.length > 0) throw new Error(`build: ${result.warnings.length} esbuild warning(s)`)
  Fs.mkdirSync(outDir, { recursive: true })
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes(":")).map((input) => Path.resolve(root, input))
  const files = [...result.outputFiles.map((file) => [file.path, file.contents]), [Path.join(outDir, "inputs.json"), JSON.stringify(inputs)]]
  for (const [file, contents] of files) {
    const temporary = `${file}.${process.pid}.tmp`
    Fs.writeFileSync(temporary, contents)
    Fs.renameSync(temporary, file)
  }
  return Path.join(outDir, "platform-kit.mjs")
}

/** Whether a build in `outDir` (its entry `entry`) is at least as new as everything it was built from. */
export const upToDate = (outDir = Path.join(root, "dist/server"), entry = "server.mjs") => {
  try {
    const built = Fs.statSync(Path.join(outDir, "inputs.json")).mtimeMs
    if (!Fs.existsSync(Path.join(outDir, entry))) return false
    // the server's build holds the console too (buildConsole)
    if (entry === "server.mjs" && !Fs.existsSync(Path.join(outDir, "console/index.html"))) return false
    const configs = [
      "package.json", "package-lock.json", "node_modules/.package-lock.json", "tsconfig.json", "tsconfig.base.json",
      ...["schema", "api", "server", "client"].flatMap((name) => [`packages/${name}/package.json`, `packages/${name}/tsconfig.json`]),
      "scripts/build.mjs", "scripts/lazy-undici.mjs"
    ].map((file) => Path.join(root, file)).filter((file) => Fs.existsSync(file))
    const inputs = JSON.parse(Fs.readFileSync(Path.join(outDir, "inputs.json"), "utf8"))
    return [...configs, ...inputs].every((file) => Fs.statSync(file).mtimeMs <= built)
  } catch {
    return false
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(Path.resolve(process.argv[1])).href) {
  try {
    if (process.argv.includes("--cli")) {
      await buildCli()
      process.exit(0)
    }
    if (process.argv.includes("--if-changed") && upToDate()) process.exit(0)
    const entry = await buildServer()
    if (!process.argv.includes("--quiet")) console.log(`built ${Path.relative(root, entry)}`)
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  }
}
