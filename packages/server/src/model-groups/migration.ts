import { documentTable } from "../sql/documents.js"

export default documentTable("model_groups")
