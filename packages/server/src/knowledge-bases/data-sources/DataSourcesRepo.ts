import { KnowledgeBaseDataSource } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../../sql/documents.js"

/** Table and 404 label of data sources; other families name the table in `ensureReference`. */
export const dataSourceReference = { table: "knowledge_base_data_sources", label: "Knowledge base data source" } as const

export class DataSourcesRepo extends Effect.Service<DataSourcesRepo>()("@platform-kit/server/DataSourcesRepo", {
  effect: makeDocuments({
    ...dataSourceReference,
    schema: KnowledgeBaseDataSource,
    columns: (source) => ({ id: source.id, account_id: source.account_id, created_at: source.created_at })
  })
}) {}
