/**
 * The OpenAPI document passes `redocly lint` with the recommended rules (docs/decisions.md
 * "OpenAPI document"): no error, and only the warnings listed here, each for a reason that is
 * the platform's and not the document's.
 */
import { OpenApi } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { PlatformApi } from "@platform-kit/api"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../..")

/** The warnings the recommended rules give, and why they stay. */
const knownWarnings = [
  // the platform's own paths, as it serves them: a literal segment beside a parameter
  ["no-ambiguous-paths", "#/paths/~1v4~1serving~1{model_server_id}~1backend"],
  ["no-ambiguous-paths", "#/paths/~1v4~1serving~1{model_server_id}~1deployment"],
  ["no-ambiguous-paths", "#/paths/~1v4~1serving~1{model_server_id}~1rollback"],
  ["no-ambiguous-paths", "#/paths/~1v4~1serving~1{model_server_id}~1execute"],
  ["no-ambiguous-paths", "#/paths/~1v5~1credentials~1{credential_id}~1secret"],
  // the v4 SDK's wipe (DELETE …/test-cases/{test_case_id}/history) beside …/test-cases/history/{num}
  ["no-ambiguous-paths", "#/paths/~1v4~1evaluation-datasets~1{evaluation_dataset_id}~1test-cases~1{test_case_id}~1history"],
  // agentex's own paths, as it serves them: /agents/name/{agent_name}/…, /tasks/name/{task_name}/…
  ["no-ambiguous-paths", "#/paths/~1agents~1{agent_id}~1rpc"],
  ["no-ambiguous-paths", "#/paths/~1agents~1{agent_id}~1deployments"],
  // …and /agents/{agent_id}/schedules/name/{name}/… beside /agents/{agent_id}/schedules/{schedule_id}/…
  ["no-ambiguous-paths", "#/paths/~1agents~1{agent_id}~1schedules"],
  ...["pause", "resume", "skip", "trigger", "unskip"].map((move) =>
    ["no-ambiguous-paths", `#/paths/~1agents~1{agent_id}~1schedules~1{schedule_id}~1${move}`] as const
  ),
  ["no-ambiguous-paths", "#/paths/~1tasks~1name~1{task_name}"],
  ...["cancel", "complete", "fail", "interrupt", "terminate", "timeout"].map((move) =>
    ["no-ambiguous-paths", `#/paths/~1tasks~1{task_id}~1${move}`] as const
  ),
  // GET /health answers 200 only: listing errors it cannot give would be untrue
  ["operation-4xx-response", "#/paths/~1health/get/responses"],
  // the SDK's own path: `interactions.create` posts to /v4/interactions/ (an error of the rule, known)
  ["no-path-trailing-slash", "#/paths/~1v4~1interactions~1"]
]

describe("OpenAPI lint", () => {
  it("redocly's recommended rules: no error; only the known warnings", async () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "platform-kit-openapi-"))
    try {
      const file = Path.join(dir, "openapi.json")
      Fs.writeFileSync(file, JSON.stringify(OpenApi.fromApi(PlatformApi), null, 1))
      const run = await promisify(execFile)(
        Path.join(root, "node_modules/.bin/redocly"),
        ["lint", "--format=json", "--max-problems=1000", file],
        {
          cwd: dir,
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
        }
      ).catch((error) => error as { stdout: string })
      const report = JSON.parse(run.stdout) as {
        totals: { errors: number; warnings: number }
        problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>
      }
      const known = new Set(knownWarnings.map(([rule, pointer]) => `${rule} ${pointer}`))
      const errors = report.problems.filter((problem) =>
        problem.severity === "error" && !known.has(`${problem.ruleId} ${problem.location[0]!.pointer}`)
      )
      assert.deepStrictEqual(errors.map((problem) => `${problem.ruleId}: ${problem.message}`), [])
      assert.deepStrictEqual(
        report.problems.map((problem) => [problem.ruleId, problem.location[0]!.pointer]).sort(),
        [...knownWarnings].sort()
      )
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
