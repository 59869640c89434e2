import { documentTable } from "../sql/documents.js"

/** The tables of deployment packages: install jobs, with `status` for the installer to pick up. */
const created = documentTable("deployment_package_jobs", (t) => [`status ${t.text} NOT NULL`])

/** The deployment packages migrations, by id (listed in ../migrations.ts). */
export const deploymentPackagesMigrations = {
  "0009_deployment_packages": created
}
