/**
 * The house's fences (docs/architecture.md), read from the sources' imports: the fast path is
 * plugged in only by the top compositions, and the shared floors import no family.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"

const src = Path.resolve(import.meta.dirname, "../src")

/** The folders every family uses and none owns. */
const floors = ["http", "sql", "auth", "platform", "engine", "idempotency"]

/** The top compositions that may plug the fast path in. */
const fastComposers = ["main.ts", "testing.ts", "testDatabase.ts", "testing/"]

const sources = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/** Every module a source imports (static, dynamic and re-exports), as paths relative to src/. */
const importsOf = (file: string): Array<string> =>
  [...Fs.readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((match) =>
    Path.relative(src, Path.resolve(Path.dirname(file), match[1]!)).replace(/\.js$/, ".ts")
  )

const modules = sources(src).map((file) => ({ file: Path.relative(src, file), imports: importsOf(file) }))

/** The folders of src/ that are families (neither floors, nor the fast path). */
const families = Fs.readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !floors.includes(entry.name) && entry.name !== "fast")
  .map((entry) => entry.name)

describe("architecture", () => {
  it("reads the sources: families, floors and imports are found", () => {
    assert.include(families, "knowledge-bases")
    assert.include(families, "models")
    assert.isAbove(modules.length, 100)
    assert.isTrue(modules.some((module) => module.imports.includes("fast/server.ts")))
  })

  it("no module outside fast/ and the top compositions imports fast/", () => {
    const crossing = modules.filter(({ file, imports }) =>
      !file.startsWith("fast/") && !fastComposers.some((top) => file === top || file.startsWith(top)) &&
      imports.some((imported) => imported.startsWith("fast/"))
    ).map(({ file }) => file)
    assert.deepStrictEqual(crossing, [])
  })

  it("no shared floor imports a family", () => {
    const crossing = modules.flatMap(({ file, imports }) =>
      floors.includes(file.split("/")[0]!)
        ? imports.filter((imported) => families.includes(imported.split("/")[0]!)).map((imported) => `${file} -> ${imported}`)
        : []
    )
    assert.deepStrictEqual(crossing, [])
  })
})
