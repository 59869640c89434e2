/**
 * The console (docs/console.md): the browser application under `/console`, served from the files
 * `scripts/build.mjs` wrote (`dist/server/console/`: `index.html` and `assets/`, whose names carry
 * a hash of their contents). Not part of the API: the console speaks the public API through the
 * kit's own client, like any other client, so these routes are static files only.
 *
 * - `GET /console/assets/<name>`: a built asset, `cache-control: public, max-age=31536000,
 *   immutable` (a new build gives new names), its gzipped copy (`<name>.gz`, written by the
 *   build) to a browser that accepts gzip; an unknown name is a 404.
 * - `GET /console` and every other `GET /console/*`: `index.html` (the application reads the path
 *   itself: its pages are `/console/models`, …), `cache-control: no-cache`, so that a new build is
 *   picked up on the next load.
 *
 * The routes are registered on `HttpApiBuilder.Router` as `/docs` is (http/docs.ts), so the
 * builder's path serves them and the lean server hands them over (a route it does not know).
 * `ConsoleLive` is optional: the standalone server adds it (main.ts); an embedding program provides
 * it to its `HttpApiBuilder.serve` (`HttpLive.pipe(Layer.provide(ConsoleLive))`).
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * Where a build put the console, relative to this module: the server's bundle (`dist/server/`
 * with this code in `server.mjs` or in `chunks/`), or the sources (`packages/server/src/console/`,
 * the tests and `tsx`), which read the repository's last build.
 */
const candidates = ["./console", "../console", "../../../../dist/server/console"]

/** The first candidate holding an `index.html`, else undefined (the console was not built). */
export const findConsoleDirectory = (): string | undefined => {
  const here = Path.dirname(fileURLToPath(import.meta.url))
  return candidates.map((candidate) => Path.resolve(here, candidate)).find((dir) => Fs.existsSync(Path.join(dir, "index.html")))
}

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2"
}

/**
 * Only the console's own code and the API of the same origin: no inline script, nothing from
 * another host (it works offline).
 */
const securityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

/** An asset's name: one path segment of the build's own characters (no `..`, no `/`). */
const assetName = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/

const notFound = (detail: string) => HttpServerResponse.unsafeJson({ detail }, { status: 404 })

const readFile = (file: string) =>
  Effect.tryPromise(() => Fs.promises.readFile(file)).pipe(Effect.option)

/** Answers one `GET /console…` from `directory` (undefined: not built). */
const answer = (directory: string | undefined) =>
  Effect.gen(function*() {
    if (directory === undefined) return notFound("The console is not built: run `npm run build` (docs/console.md)")
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = new URL(request.url, "http://console").pathname
    if (path.startsWith("/console/assets/")) {
      const name = path.slice("/console/assets/".length)
      if (!assetName.test(name)) return notFound("No such console asset")
      const file = Path.join(directory, "assets", name)
      const headers = { ...securityHeaders, "cache-control": "public, max-age=31536000, immutable", vary: "accept-encoding" }
      const contentType = contentTypes[Path.extname(name)] ?? "application/octet-stream"
      // the build's gzipped copy when the browser takes gzip (every browser does): a third of the bytes
      if (/\bgzip\b/.test(request.headers["accept-encoding"] ?? "")) {
        const gzipped = yield* readFile(`${file}.gz`)
        if (gzipped._tag === "Some") {
          return HttpServerResponse.uint8Array(gzipped.value, { contentType, headers: { ...headers, "content-encoding": "gzip" } })
        }
      }
      const bytes = yield* readFile(file)
      if (bytes._tag === "None") return notFound("No such console asset")
      return HttpServerResponse.uint8Array(bytes.value, { contentType, headers })
    }
    const index = yield* readFile(Path.join(directory, "index.html"))
    if (index._tag === "None") return notFound("The console is not built: run `npm run build` (docs/console.md)")
    return HttpServerResponse.uint8Array(index.value, {
      contentType: "text/html; charset=utf-8",
      headers: { ...securityHeaders, "cache-control": "no-cache" }
    })
  })

/** `GET /console` and `GET /console/*`, served from `directory` (default: `findConsoleDirectory`). */
export const consoleLayer = (options: { readonly directory?: string | undefined } = {}): Layer.Layer<never> =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const handler = answer(options.directory ?? findConsoleDirectory())
      yield* router.get("/console", handler)
      yield* router.get("/console/*", handler)
    })
  )

/** The console at `/console`, from the server's build (docs/console.md). */
export const ConsoleLive: Layer.Layer<never> = consoleLayer()
