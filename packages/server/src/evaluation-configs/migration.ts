import { documentTable } from "../sql/documents.js"

/** The tables of evaluation configs. */
export default documentTable("evaluation_configs")
