import { documentTable } from "../sql/documents.js"

const created = documentTable("model_groups")

/** The model groups migrations, by id (listed in ../migrations.ts). */
export const modelGroupsMigrations = {
  "0002_model_groups": created
}
