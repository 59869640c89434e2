import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const version_constraint = { version_constraint_type: "SEMVER_MIN", minimum_version: "1.2.0" } as const
  const { deployment_package_job_id } = yield* platform.deploymentPackages.installAsync({
    path: { account_id },
    payload: { deployment_package_name: "support-agents", version_constraint }
  })
  const job = yield* platform.deploymentPackages.getInstallJob({ path: { account_id, deployment_package_job_id } }).pipe(
    Effect.delay("500 millis"),
    Effect.repeat({ until: (job) => job.status === "SUCCEEDED" || job.status === "FAILED" })
  )
  const jobs = yield* platform.deploymentPackages.listInstallJobs({ path: { account_id }, urlParams: { limit: 10 } })
  yield* Console.log(job.status, job.status_reason, jobs.total_item_count)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
