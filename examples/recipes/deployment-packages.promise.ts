import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
const version_constraint = { version_constraint_type: "SEMVER_MIN", minimum_version: "1.2.0" } as const
const { deployment_package_job_id } = await platform.deploymentPackages.installAsync({
  path: { account_id },
  payload: { deployment_package_name: "support-agents", version_constraint }
})
let job = await platform.deploymentPackages.getInstallJob({ path: { account_id, deployment_package_job_id } })
while (job.status === "PENDING" || job.status === "RUNNING") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  job = await platform.deploymentPackages.getInstallJob({ path: { account_id, deployment_package_job_id } })
}
const jobs = await platform.deploymentPackages.listInstallJobs({ path: { account_id }, urlParams: { limit: 10 } })
console.log(job.status, job.status_reason, jobs.total_item_count)
await platform.close()
