import { documentTable } from "../sql/documents.js"

/** The tables of deployment packages: install jobs, with `status` for the installer to pick up. */
export default documentTable("deployment_package_jobs", (t) => [`status ${t.text} NOT NULL`])
