import { KbIndexConfiguration } from "@platform-kit/schema"
import type { IndexBackend } from "@platform-kit/schema"

/** The most documents an index holds; one limit for every backend with a schema. */
export const MAX_INDEX_SIZE = 1_000_000

/**
 * The effective metadata schema of a knowledge base's index: the system fields every artifact's
 * chunks carry. BACKEND_A and BACKEND_C have a schema; BACKEND_B and BACKEND_D are schemaless
 * (`null`).
 */
export const indexConfiguration = (backend: IndexBackend): KbIndexConfiguration | null => {
  switch (backend) {
    case "BACKEND_A":
    case "BACKEND_C":
      return new KbIndexConfiguration({
        fields: {
          page: { type: "int32", filterable: true, searchable: false, fields: null },
          artifact_uri_public: { type: "string", filterable: true, searchable: false, fields: null },
          artifact_name: { type: "string", filterable: true, searchable: true, fields: null }
        },
        max_index_size: MAX_INDEX_SIZE
      }, true)
    case "BACKEND_B":
    case "BACKEND_D":
      return null
  }
}
