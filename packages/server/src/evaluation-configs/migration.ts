import { documentTable } from "../sql/documents.js"

/** The tables of evaluation configs. */
const created = documentTable("evaluation_configs")

/** The evaluation configs migrations, by id (listed in ../migrations.ts). */
export const evaluationConfigsMigrations = {
  "0007_evaluation_configs": created
}
