/**
 * The recipes at the head of each family's doc (docs/*.md, "## Recipe"): their `sh` blocks, run in
 * order by bash against a test server with `BASE`, `KEY` and `ACCOUNT` set as a user's shell
 * would have them (README.md, "Quick start"), each doc on an account of its own. A recipe that
 * stops working (a curl answered with an error: `--fail-with-body`; a `jq -e` that finds nothing)
 * fails here. Their `ts` blocks are the programs of examples/recipes/ as they are (type-checked
 * by `tsc -b` with the examples); the Promise client's runs here too.
 */
import { HttpServer } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { provision, TestServerLive } from "../src/testing.js"

const repoRoot = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../..")
const docs = Path.join(repoRoot, "docs")
const recipePrograms = Path.join(repoRoot, "examples/recipes")

/** The docs of the API's families: each starts with a recipe. */
const families = [
  "agent-runtime.md",
  "agent-tasks.md",
  "applications.md",
  "builds.md",
  "credentials.md",
  "deployment-packages.md",
  "evaluation-configs.md",
  "evaluation-dashboards.md",
  "evaluation-datasets.md",
  "evaluations.md",
  "events.md",
  "files.md",
  "inference-v5.md",
  "fine-tuning-jobs.md",
  "knowledge-bases.md",
  "models.md",
  "model-templates.md",
  "questions.md",
  "span-assessments.md",
  "spans.md",
  "datasets.md",
  "training-datasets.md",
  "users.md"
]

/** The `lang` blocks of a doc's "## Recipe" section, in order. */
const recipeOf = (markdown: string, lang = "sh"): ReadonlyArray<string> => {
  const section = /^## Recipe\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1] ?? ""
  return [...section.matchAll(new RegExp(`^\`\`\`${lang}\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((match) => match[1]!)
}

/** The programs of a family's recipe: examples/recipes/<family>.promise.ts and .effect.ts. */
const programsOf = (family: string) =>
  ["promise", "effect"].map((client) => Path.join(recipePrograms, `${family.replace(/\.md$/, "")}.${client}.ts`))

/** Runs `script` with bash (`-euo pipefail`): its exit code and everything it printed. */
const runBash = (script: string, env: Record<string, string>) =>
  Effect.async<{ readonly code: number | null; readonly output: string }>((resume) => {
    // stdin not a socket: bash run with one reads /etc/bash.bashrc, as under sshd
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
      cwd: Path.dirname(docs),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.once("exit", (code) => resume(Effect.succeed({ code, output })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** `effect` with `env` set in `process.env`, as before afterwards. */
const withEnv = <A, E, R>(env: Record<string, string>, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const before = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]))
      Object.assign(process.env, env)
      return before
    }),
    () => effect,
    (before) =>
      Effect.sync(() => {
        for (const [name, value] of Object.entries(before)) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
      })
  )

// the server on the real clock, as a user's: its timestamps order what the recipes list
layer(TestServerLive, { timeout: 60_000, excludeTestServices: true })("recipes", (it) => {
  for (const family of families) {
    it.effect(`${family}: starts with a recipe, whose sh blocks run against the server and whose ts blocks are its programs`, () =>
      Effect.gen(function*() {
        const markdown = Fs.readFileSync(Path.join(docs, family), "utf8")
        const blocks = recipeOf(markdown)
        assert.isAbove(blocks.length, 0, `${family} has no recipe`)
        assert.isTrue(blocks.some((block) => block.includes("curl ")), `${family}'s recipe runs no curl`)
        // the recipe comes first: before the doc's first other section
        assert.match(markdown, /^# [^\n]+\n(?:(?!^## )[\s\S])*^## Recipe$/m, `${family}: the recipe is not the first section`)
        // the Promise client's program, then the Effect client's, as the files hold them
        assert.deepStrictEqual(
          recipeOf(markdown, "ts"),
          programsOf(family).map((file) => Fs.existsSync(file) ? Fs.readFileSync(file, "utf8") : `(no ${file})`),
          `${family}: its ts blocks are not examples/recipes/' programs`
        )
        const { accountId, key } = yield* provision()
        const server = yield* HttpServer.HttpServer
        const base = `http://127.0.0.1:${(server.address as HttpServer.TcpAddress).port}`
        const ran = yield* runBash(blocks.join("\n"), { BASE: base, KEY: key, ACCOUNT: accountId })
        assert.strictEqual(ran.code, 0, `${family}'s recipe failed:\n${ran.output.slice(-3_000)}`)
        // the Promise client's program, run here with the environment it reads
        yield* withEnv({ PLATFORM_BASE_URL: base, PLATFORM_API_KEY: key, PLATFORM_ACCOUNT_ID: accountId }, Effect.promise(() => import(programsOf(family)[0]!)))
      }))
  }
})
