import { documentTable } from "../sql/documents.js"

/** The tables of questions. */
const created = documentTable("questions")

/** The questions migrations, by id (listed in ../migrations.ts). */
export const questionsMigrations = {
  "0006_questions": created
}
