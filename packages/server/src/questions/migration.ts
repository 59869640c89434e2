import { documentTable } from "../sql/documents.js"

/** The tables of questions. */
export default documentTable("questions")
