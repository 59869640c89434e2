/**
 * What an install job needs before it can install: a package to install and a version constraint
 * that parses. The request accepts any non-empty `minimum_version` and the open `TIMESTAMP_MIN` /
 * `EXACT_VERSION` objects as they come (docs/deployment-packages.md); this is where they are
 * parsed, and a problem becomes the job's `status_reason`.
 */
import type { DeploymentPackageInstallJob, VersionConstraint } from "@platform-kit/schema"
import { DateTimeString } from "@platform-kit/schema"
import { Schema } from "effect"

/** Semantic Versioning 2.0.0: `MAJOR.MINOR.PATCH`, optional `-prerelease` and `+build`. */
const semver =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/

const isDateTime = Schema.is(DateTimeString)

/** The reason the constraint does not parse, if it does not. */
export const constraintProblem = (constraint: VersionConstraint): string | undefined => {
  switch (constraint.version_constraint_type) {
    case "SEMVER_MIN":
      return semver.test(constraint.minimum_version)
        ? undefined
        : `minimum_version "${constraint.minimum_version}" is not a semantic version (MAJOR.MINOR.PATCH)`
    case "TIMESTAMP_MIN": {
      const timestamp = constraint["minimum_timestamp"]
      return typeof timestamp === "string" && isDateTime(timestamp)
        ? undefined
        : "minimum_timestamp must be an ISO 8601 date-time"
    }
    case "EXACT_VERSION": {
      const version = constraint["package_version_id"]
      return typeof version === "string" && version.length > 0
        ? undefined
        : "package_version_id must be a non-empty string"
    }
  }
}

/** The reason the job cannot install, if it cannot. */
export const installProblem = (job: DeploymentPackageInstallJob): string | undefined => {
  if (job.deployment_package_id === null && job.deployment_package_name === null) {
    return "No package named: give deployment_package_id or deployment_package_name"
  }
  return job.version_constraint === null ? undefined : constraintProblem(job.version_constraint)
}
