/**
 * The four packages as a user gets them (docs/packages.md): the README's install commands (read
 * from README.md, run as they are written): `npm pack` of each workspace, the tarballs installed
 * with the pinned peers into a fresh project under the system's temporary directory (no path back
 * into this repository: the packages are copied in, not linked), and there
 * - a program that embeds the API (in-memory SQLite, a lifecycle run by the engine) and calls it
 *   through the typed client, one that calls a started server, and one that runs the test kit
 *   (`@platform-kit/server/testing`), each type-checked by the project's own TypeScript and run as
 *   the JavaScript it emits;
 * - the server started by the installed `platform-kit-server` bin and the admin CLI by
 *   `platform-kit`, neither with tsx (which the project does not install).
 * Installing needs the packages' dependencies from npm; `npm ci` in this repository has put every
 * one of them in npm's cache, which the install prefers.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile, execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { promisify } from "node:util"
import { cleanup, repoRoot, runCli, serverAccount, serverKey, startServer, tempDir } from "../support/processes.js"

const execFileAsync = promisify(execFile)

/** Runs a program to its end; a failure carries what it printed. */
const exec = (file: string, args: ReadonlyArray<string>, options: { cwd: string; timeout?: number; env?: NodeJS.ProcessEnv }) =>
  execFileAsync(file, args, { maxBuffer: 64 * 1024 * 1024, ...options }).catch((error) => {
    throw new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${error.stdout ?? ""}\n${error.stderr ?? ""}`)
  })

/** The README's install commands: its `sh` block that packs the workspaces. */
const readmeInstall = (): string => {
  const readme = Fs.readFileSync(Path.join(repoRoot, "README.md"), "utf8")
  const block = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!).find((text) => text.includes("npm pack --workspaces"))
  if (block === undefined) throw new Error("README.md has no sh block with `npm pack --workspaces`")
  return block
}

/** The versions the workspace pins, for what the programs import besides the kit. */
const pinned = (name: string): string => {
  const lock = JSON.parse(Fs.readFileSync(Path.join(repoRoot, "package-lock.json"), "utf8"))
  return lock.packages[`node_modules/${name}`].version
}

const embeddedProgram = `
import { NodeRuntime } from "@effect/platform-node"
import { makeClient } from "@platform-kit/client"
import { FineTuningJob } from "@platform-kit/schema"
import { Accounts, DatabaseMemory, Ids, InProcessHttpClient } from "@platform-kit/server"
import { Effect, Layer, Schema } from "effect"

const program = Effect.gen(function*() {
  const { accountId, key } = yield* Effect.flatMap(Accounts, (accounts) => accounts.provisionUser())
  const client = yield* makeClient({ apiKey: key })
  const group = yield* client.modelGroups.create({ payload: { name: "packed", account_id: accountId } })
  const again = yield* client.modelGroups.get({ path: { model_group_id: group.id } })
  const missing = yield* Effect.flip(client.modelGroups.get({ path: { model_group_id: "nope" } }))
  const form = new FormData()
  form.append("account_id", accountId)
  form.append("name", "train")
  form.append("schema_type", "GENERATION")
  form.append("file", new Blob([JSON.stringify({ input: "2 + 2?", output: "4" })]), "train.jsonl")
  const dataset = yield* client.trainingDatasets.create({ payload: form })
  const job = yield* client.fineTuningJobs.create({
    payload: { training_dataset_id: dataset.id, base_model_id: "base-1", account_id: accountId }
  })
  const read = Effect.delay(client.fineTuningJobs.get({ path: { fine_tuning_job_id: job.id } }), "20 millis")
  const done = yield* Effect.repeat(read, { until: (now) => now.status !== "PENDING" && now.status !== "RUNNING" })
  const encoded: typeof FineTuningJob.Encoded = Schema.encodeSync(FineTuningJob)(done)
  console.log(JSON.stringify({ group: again.name, missing: missing._tag, job: encoded.status }))
})

const EmbeddedLive = Layer.mergeAll(InProcessHttpClient, Accounts.Default).pipe(
  Layer.provideMerge(Ids.Live),
  Layer.provideMerge(DatabaseMemory)
)

NodeRuntime.runMain(program.pipe(Effect.provide(EmbeddedLive)))
`

const clientProgram = `
import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig, v4Items } from "@platform-kit/client"
import { Effect, Layer, Stream } from "effect"

const program = Effect.gen(function*() {
  const client = yield* PlatformClient
  const accountId = process.env.PLATFORM_ACCOUNT_ID!
  yield* client.modelGroups.create({ payload: { name: "one", account_id: accountId } })
  yield* client.modelGroups.create({ payload: { name: "two", account_id: accountId } })
  const names = yield* Stream.runCollect(v4Items((page) => client.modelGroups.list({ urlParams: { page, limit: 1 } })))
  const missing = yield* Effect.flip(client.modelGroups.get({ path: { model_group_id: "missing" } }))
  console.log(JSON.stringify({ names: Array.from(names, (group) => group.name).sort(), missing: missing._tag }))
})

NodeRuntime.runMain(program.pipe(
  Effect.provide(PlatformClient.Default.pipe(Layer.provideMerge(PlatformClientConfig.fromEnv), Layer.provide(FetchHttpClient.layer)))
))
`

const kitProgram = `
import { NodeRuntime } from "@effect/platform-node"
import { eventually, provision, request, TestServerLive } from "@platform-kit/server/testing"
import { Effect, Option } from "effect"

const program = Effect.gen(function*() {
  const { accountId, client } = yield* provision()
  const group = yield* client.modelGroups.create({ payload: { name: "kit", account_id: accountId } })
  const read = yield* eventually(Effect.map(client.modelGroups.get({ path: { model_group_id: group.id } }), Option.some))
  const anonymous = yield* request("GET", "/v4/model-groups")
  console.log(JSON.stringify({ group: Option.getOrThrow(read).name, anonymous: anonymous.status }))
})

NodeRuntime.runMain(program.pipe(Effect.provide(TestServerLive)))
`

/**
 * The environment of the project's `npm install`: better-sqlite3's install script
 * (`prebuild-install || node-gyp rebuild`) takes its native addon from
 * `npm_config_better_sqlite3_local_prebuilds` before it asks GitHub for a prebuilt one, and on a
 * machine that cannot reach GitHub it compiles SQLite from source (about 70 s of the 2-core CI
 * machine, as `npm ci` there already did). So the addon this repository's install built is handed
 * to it, packed as a prebuilt one is (the same version, for this Node and platform); without one,
 * the install goes as it would.
 */
const installEnv = (dir: string): NodeJS.ProcessEnv => {
  const addon = Path.join(repoRoot, "node_modules/better-sqlite3")
  if (!Fs.existsSync(Path.join(addon, "build/Release/better_sqlite3.node"))) return process.env
  const version = JSON.parse(Fs.readFileSync(Path.join(addon, "package.json"), "utf8")).version
  const prebuilds = Path.join(dir, "prebuilds")
  Fs.mkdirSync(prebuilds)
  const tarball = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
  execFileSync("tar", ["-czf", Path.join(prebuilds, tarball), "-C", addon, "build/Release/better_sqlite3.node"])
  return { ...process.env, npm_config_better_sqlite3_local_prebuilds: prebuilds }
}

const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    // as `tsc --init` sets it: some dependencies' declarations name packages without types (ws)
    skipLibCheck: true,
    outDir: "out",
    rootDir: "src"
  },
  include: ["src"]
}

describe("the packages, packed and installed into a project of their own", () => {
  it("type-check and run there: embedded, against the installed server, and the admin CLI, without tsx", async () => {
    const dir = tempDir("packed")
    try {
      // a project of the user's (TypeScript of its own, for the programs below), then the README's install
      const project = Path.join(dir, "project")
      Fs.mkdirSync(Path.join(project, "src"), { recursive: true })
      const devDependencies = Object.fromEntries(["typescript", "@types/node"].map((name) => [name, pinned(name)]))
      Fs.writeFileSync(Path.join(project, "package.json"), JSON.stringify({ name: "packed-user", private: true, type: "module", devDependencies }, null, 2))
      Fs.writeFileSync(Path.join(project, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
      Fs.writeFileSync(Path.join(project, "src/embedded.ts"), embeddedProgram)
      Fs.writeFileSync(Path.join(project, "src/call.ts"), clientProgram)
      Fs.writeFileSync(Path.join(project, "src/kit.ts"), kitProgram)
      const install = readmeInstall()
      // the peers it pins are the versions this repository builds with
      for (const name of ["effect", "@effect/platform", "@effect/platform-node"]) assert.include(install, ` ${name}@${pinned(name)}`)
      await exec("bash", ["-euo", "pipefail", "-c", install], {
        cwd: project,
        timeout: 600_000,
        env: { ...installEnv(dir), KIT: repoRoot, npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_loglevel: "error" }
      })
      const installed = JSON.parse(Fs.readFileSync(Path.join(project, "package.json"), "utf8")).dependencies
      assert.includeMembers(Object.keys(installed), ["@platform-kit/api", "@platform-kit/client", "@platform-kit/schema", "@platform-kit/server", "effect", "@effect/platform", "@effect/platform-node"])
      // what the tarballs the README's command packed hold
      const packages = Path.join(repoRoot, "dist/packages")
      const files = Fs.readdirSync(packages).filter((file) => /^platform-kit-.*\.tgz$/.test(file)).map((filename) => {
        const tarball = Path.join(packages, filename)
        const name: string = JSON.parse(execFileSync("tar", ["-xOzf", tarball, "package/package.json"], { encoding: "utf8" })).name
        const paths = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").map((path) => path.replace(/^package\//, ""))
        return { name, paths }
      })
      assert.deepStrictEqual(files.map((file) => file.name).sort(), [
        "@platform-kit/api",
        "@platform-kit/client",
        "@platform-kit/schema",
        "@platform-kit/server"
      ])
      for (const { name, paths } of files) {
        // the built module and its declarations are shipped; tests and build state are not
        assert.include(paths, "dist/src/index.js", name)
        assert.include(paths, "dist/src/index.d.ts", name)
        assert.include(paths, "LICENSE", name)
        assert.isFalse(paths.some((path) => path.startsWith("test/") || path.startsWith("dist/test/") || path.endsWith(".tsbuildinfo")), name)
      }
      // the server's second entry, the test kit, and the admin CLI's bundle
      assert.includeMembers(files.find((file) => file.name === "@platform-kit/server")!.paths, [
        "dist/src/testing.js",
        "dist/src/testing.d.ts",
        "dist/cli/platform-kit.mjs"
      ])

      // copies, not links back into the repository; no TypeScript runner
      for (const name of ["schema", "api", "server", "client"]) {
        const installed = Path.join(project, "node_modules/@platform-kit", name)
        assert.isFalse(Fs.lstatSync(installed).isSymbolicLink(), name)
        assert.isFalse(Fs.realpathSync(installed).startsWith(repoRoot), name)
      }
      assert.isFalse(Fs.existsSync(Path.join(project, "node_modules/tsx")))

      await exec(Path.join(project, "node_modules/.bin/tsc"), ["-p", project], { cwd: project })
      const embedded = await exec(process.execPath, [Path.join(project, "out/embedded.js")], { cwd: project, timeout: 120_000 })
      assert.deepStrictEqual(JSON.parse(embedded.stdout.trim().split("\n").pop()!), { group: "packed", missing: "NotFound", job: "COMPLETED" })
      const kit = await exec(process.execPath, [Path.join(project, "out/kit.js")], { cwd: project, timeout: 120_000 })
      assert.deepStrictEqual(JSON.parse(kit.stdout.trim().split("\n").pop()!), { group: "kit", anonymous: 401 })

      const databaseUrl = `sqlite:${Path.join(dir, "platform.db")}`
      const server = await startServer({
        databaseUrl,
        command: [Path.join(project, "node_modules/.bin/platform-kit-server")],
        cwd: project,
        env: { PLATFORM_PROGRESSION: "immediate" }
      })
      try {
        const called = await exec(process.execPath, [Path.join(project, "out/call.js")], {
          cwd: project,
          timeout: 120_000,
          env: { ...process.env, PLATFORM_BASE_URL: `http://127.0.0.1:${server.port}`, PLATFORM_API_KEY: serverKey, PLATFORM_ACCOUNT_ID: serverAccount }
        })
        assert.deepStrictEqual(JSON.parse(called.stdout.trim().split("\n").pop()!), { names: ["one", "two"], missing: "NotFound" })
      } finally {
        await server.stop()
      }

      const created = await runCli(["accounts", "create", "--name", "acme"], {
        databaseUrl,
        command: [Path.join(project, "node_modules/.bin/platform-kit")],
        cwd: project
      })
      assert.strictEqual(created.code, 0, created.stderr)
      assert.match(created.stdout.trim(), /^[0-9a-f-]{36}$/)
    } finally {
      if (process.env.KEEP_PACKED === undefined) cleanup(dir)
    }
  }, 900_000)
})
