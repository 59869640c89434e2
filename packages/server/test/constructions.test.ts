/**
 * The server makes the entities it answers and stores with validation off (docs/decisions.md
 * "Entities the server makes"): Effect 3's Schema class constructor compiles a new validator at
 * every call when a field holds a class or a transformation (tens of µs a call, and garbage kept
 * until a full collection). This test finds every `new X(props)` in the server's sources whose
 * class is one of those and that does not say `true`.
 */
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import ts from "typescript"
import * as Entities from "@platform-kit/schema"

const sources = Path.resolve(import.meta.dirname, "../src")

const filesUnder = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(Path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [Path.join(dir, entry.name)] : []
  )

/** Whether `new klass(props)` compiles its validator anew: its fields' type side is made anew each time. */
const recompiles = (value: unknown): boolean => {
  if (!Schema.isSchema(value) || !("fields" in value)) return false
  const ast = Schema.Struct(value.fields as Schema.Struct.Fields).ast
  return SchemaAST.typeAST(ast) !== SchemaAST.typeAST(ast)
}

describe("entities made by the server", () => {
  it("skip the constructor's validation wherever it would compile a validator per call", async () => {
    const files = filesUnder(sources)
    const modules = [
      Entities,
      ...await Promise.all(
        files.filter((file) => Fs.readFileSync(file, "utf8").includes("extends Schema.Class")).map((file) => import(file))
      )
    ]
    const classes = new Set(
      modules.flatMap((module) => Object.entries(module).filter(([, value]) => recompiles(value)).map(([name]) => name))
    )
    // the rule has something to check: the kit's main entities are among them
    expect(classes).toContain("TaskMessage")
    expect(classes).toContain("KnowledgeBaseArtifact")

    const validated: Array<string> = []
    for (const file of files) {
      const source = ts.createSourceFile(file, Fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
      const visit = (node: ts.Node) => {
        if (
          ts.isNewExpression(node) && ts.isIdentifier(node.expression) && classes.has(node.expression.text) &&
          node.arguments?.length === 1
        ) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart())
          validated.push(`${Path.relative(sources, file)}:${line + 1} new ${node.expression.text}(…)`)
        }
        ts.forEachChild(node, visit)
      }
      visit(source)
    }
    expect(validated).toEqual([])
  })
})
