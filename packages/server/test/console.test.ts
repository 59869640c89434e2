/**
 * Serving the console (src/console/http.ts, docs/console.md): `index.html` for `/console` and its
 * pages (no-cache), the hashed assets (immutable; the gzipped copy to a client that takes gzip),
 * 404s for anything else under `/console/assets/` and when the console is not built; the API
 * untouched beside it. Served the way the pass serves (the lean server hands these routes to the
 * builder's path); here from a folder of the test's own, so it does not need a build. The console
 * itself, built and in a browser, is processes/console.reliability.ts.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Zlib from "node:zlib"
import { consoleLayer } from "../src/console/http.js"
import { send, serverPort, TestServerLive } from "../src/testing.js"

const built = Fs.mkdtempSync(Path.join(Os.tmpdir(), "platform-kit-console-"))
const index = "<!doctype html><div id=\"app\"></div><script type=\"module\" src=\"/console/assets/main-ABC123.js\"></script>"
const script = "console.log('the console')\n".repeat(50)
Fs.mkdirSync(Path.join(built, "assets"))
Fs.writeFileSync(Path.join(built, "index.html"), index)
Fs.writeFileSync(Path.join(built, "assets/main-ABC123.js"), script)
Fs.writeFileSync(Path.join(built, "assets/main-ABC123.js.gz"), Zlib.gzipSync(script))
Fs.writeFileSync(Path.join(built, "secret.txt"), "not an asset")

const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(serverPort, (port) => Effect.promise(() => send({ port, method: "GET", path, headers })))

describe("the console, served", () => {
  layer(TestServerLive.pipe(Layer.provide(consoleLayer({ directory: built }))))("built", (it) => {
    it.effect("/console and every page under it: index.html, not cached, only the console's own code allowed", () =>
      Effect.gen(function*() {
        for (const path of ["/console", "/console/", "/console/models", "/console/models/some-id?x=1", "/console/playground"]) {
          const response = yield* get(path)
          assert.strictEqual(response.status, 200, path)
          assert.strictEqual(response.text, index, path)
          assert.strictEqual(response.headers["content-type"], "text/html; charset=utf-8")
          assert.strictEqual(response.headers["cache-control"], "no-cache")
          assert.match(String(response.headers["content-security-policy"]), /default-src 'self'; script-src 'self'/)
          assert.strictEqual(response.headers["x-content-type-options"], "nosniff")
        }
      }))

    it.effect("an asset: immutable, gzipped to a client that takes gzip, as is to one that does not", () =>
      Effect.gen(function*() {
        const plain = yield* get("/console/assets/main-ABC123.js")
        assert.strictEqual(plain.status, 200)
        assert.strictEqual(plain.text, script)
        assert.strictEqual(plain.headers["content-type"], "text/javascript; charset=utf-8")
        assert.strictEqual(plain.headers["cache-control"], "public, max-age=31536000, immutable")
        assert.isUndefined(plain.headers["content-encoding"])
        const gzipped = yield* get("/console/assets/main-ABC123.js", { "accept-encoding": "gzip, deflate, br" })
        assert.strictEqual(gzipped.status, 200)
        assert.strictEqual(gzipped.headers["content-encoding"], "gzip")
        assert.strictEqual(gzipped.headers["vary"], "accept-encoding")
        assert.strictEqual(Number(gzipped.headers["content-length"]), Fs.statSync(Path.join(built, "assets/main-ABC123.js.gz")).size)
      }))

    it.effect("nothing else is read: unknown assets, other files of the folder, paths out of it are 404s", () =>
      Effect.gen(function*() {
        for (const path of ["/console/assets/main-XYZ.js", "/console/assets/..%2Fsecret.txt", "/console/assets/", "/console/assets/a/b.js"]) {
          const response = yield* get(path)
          assert.strictEqual(response.status, 404, path)
          assert.notInclude(response.text, "not an asset", path)
        }
        // `..` in the path is resolved before routing: a page of the console, not the file
        const dotted = yield* get("/console/assets/../secret.txt")
        assert.strictEqual(dotted.text, index)
        const missing = yield* get("/console/assets/main-XYZ.js")
        assert.deepStrictEqual(missing.json, { detail: "No such console asset" })
      }))

    it.effect("the API beside it is unchanged", () =>
      Effect.gen(function*() {
        const health = yield* get("/health")
        assert.strictEqual(health.status, 200)
        assert.deepStrictEqual(health.json, { status: "ok" })
        assert.strictEqual((yield* get("/consoles")).status, 404)
      }))
  })

  layer(TestServerLive.pipe(Layer.provide(consoleLayer({ directory: Path.join(built, "none") }))))("not built", (it) => {
    it.effect("a 404 that says how to build it", () =>
      Effect.gen(function*() {
        const response = yield* get("/console/models")
        assert.strictEqual(response.status, 404)
        assert.deepStrictEqual(response.json, { detail: "The console is not built: run `npm run build` (docs/console.md)" })
      }))
  })
})
