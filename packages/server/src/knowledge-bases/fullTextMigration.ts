/**
 * Migration 0036: the chunks' full-text index is written by the statement that writes the chunks
 * (ChunksRepo `replaceOfArtifacts`, sql/dialect.ts `indexFullText`), no longer by a trigger per row
 * (docs/knowledge-bases.md "Tables"). The rows indexed before stay as they are.
 */
import { dropFullTextInsertTrigger } from "../sql/dialect.js"

export default dropFullTextInsertTrigger("kb_chunks")
