/** Deployment package install jobs (docs/deployment-packages.md). */
import { Schema } from "effect"
import { DateTimeString, Id, IdentityType, JsonObject, NonEmptyString, Nullable, Optional } from "./common.js"

/** The package kind; the request field is `deployment_package_type` (docs/deployment-packages.md). */
export const DeploymentPackageType = Schema.Literal(
  "PLATFORM_CONFIGURATION",
  "BLOB_STORAGE_FILE",
  "DOCKER_IMAGE",
  "PLATFORM_ENTITY",
  "PLATFORM_USER",
  "INTERNAL_MODEL_INFO",
  "EVALUATION_DATASET",
  "MODEL",
  "KNOWLEDGE_BASE",
  "AGENTS_CONFIG"
).annotations({ identifier: "DeploymentPackageType" })
export type DeploymentPackageType = typeof DeploymentPackageType.Type

/**
 * `minimum_version` is any non-empty string here (docs/deployment-packages.md); a job whose
 * version is not semver fails later, with a reason on the job.
 */
export class SemVerMinVersion extends Schema.Class<SemVerMinVersion>("SemVerMinVersion")({
  version_constraint_type: Schema.Literal("SEMVER_MIN"),
  minimum_version: NonEmptyString
}) {}

/**
 * The fields of the other two constraints are not shown in the platform's reference: open objects
 * told apart by `version_constraint_type`, kept as given. The installer reads `minimum_timestamp`
 * (an ISO 8601 date-time) of `TIMESTAMP_MIN` and `package_version_id` (non-empty) of
 * `EXACT_VERSION`, the names existing clients send; a job whose constraint lacks them fails with a
 * reason.
 */
export const TimestampMinVersion = Schema.Struct(
  { version_constraint_type: Schema.Literal("TIMESTAMP_MIN") },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "TimestampMinVersion" })

export const ExactVersion = Schema.Struct(
  { version_constraint_type: Schema.Literal("EXACT_VERSION") },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "ExactVersion" })

export const VersionConstraint = Schema.Union(SemVerMinVersion, TimestampMinVersion, ExactVersion)
  .annotations({ identifier: "VersionConstraint" })
export type VersionConstraint = typeof VersionConstraint.Type

/** The install request: every field optional (docs/deployment-packages.md). */
export class InstallDeploymentPackage extends Schema.Class<InstallDeploymentPackage>("InstallDeploymentPackage")({
  deployment_package_id: Optional(NonEmptyString),
  deployment_package_name: Optional(NonEmptyString),
  deployment_package_type: Optional(DeploymentPackageType),
  version_constraint: Optional(VersionConstraint)
}) {}

/** The install response. */
export class DeploymentPackageInstallStarted
  extends Schema.Class<DeploymentPackageInstallStarted>("DeploymentPackageInstallStarted")({
    deployment_package_job_id: Id,
    account_id: Id
  })
{}

/** PENDING on create, RUNNING while the installer works on it, then SUCCEEDED or FAILED. */
export const DeploymentPackageJobStatus = Schema.Literal("PENDING", "RUNNING", "SUCCEEDED", "FAILED")
  .annotations({ identifier: "DeploymentPackageJobStatus" })
export type DeploymentPackageJobStatus = typeof DeploymentPackageJobStatus.Type

/** An install job, as `GET …/install_async/{deployment_package_job_id}` answers it. */
export class DeploymentPackageInstallJob extends Schema.Class<DeploymentPackageInstallJob>("DeploymentPackageInstallJob")({
  id: Id,
  account_id: Id,
  deployment_package_id: Nullable(Schema.String),
  deployment_package_name: Nullable(Schema.String),
  deployment_package_type: Nullable(DeploymentPackageType),
  version_constraint: Nullable(VersionConstraint),
  status: DeploymentPackageJobStatus,
  /** Why the job failed; `null` unless FAILED. */
  status_reason: Nullable(Schema.String),
  created_at: DateTimeString,
  updated_at: DateTimeString,
  created_by_user_id: Id,
  created_by_identity_type: IdentityType
}) {}

/** An installation's state: INSTALLED, FAILED, or IN_PROGRESS while its job still runs. */
export const PackageInstallationStatus = Schema.Literal("INSTALLED", "UNINSTALLED", "IN_PROGRESS", "FAILED")
  .annotations({ identifier: "PackageInstallationStatus" })

/**
 * The installation a synchronous install answers (the SDK's `PackageInstallation`), read off its
 * install job (docs/deployment-packages.md "Synchronous install").
 */
export class PackageInstallation extends Schema.Class<PackageInstallation>("PackageInstallation")({
  /** The install job's id. */
  id: Id,
  created_at: DateTimeString,
  created_by_user_id: Id,
  /** The kit has no organisations above accounts: the account's id. */
  organization_id: Id,
  /** The exact version asked for, else the package and the minimum asked (`name@>=1.2.0`, `name@latest`). */
  package_version_id: Schema.String,
  account_id: Nullable(Id),
  /** What the install did, or why it failed. */
  install_log: Nullable(Schema.String),
  status: Nullable(PackageInstallationStatus),
  /** Installations are not uninstalled here: `null`. */
  deleted_at: Nullable(DateTimeString),
  /** The kit keeps no installation state beyond the job: `null`. */
  state: Nullable(JsonObject)
}) {}

export class InstallDeploymentPackageResponse
  extends Schema.Class<InstallDeploymentPackageResponse>("InstallDeploymentPackageResponse")({
    package_installation: PackageInstallation
  })
{}
