/**
 * Responses made of stored documents' texts (sql/documents.ts: `getText`, `pageOfTexts`,
 * `cursorPageOfTexts`): the text a row holds in today's form is what encoding its entity would
 * answer, so a read answers it as it is, without decoding and encoding the document.
 *
 * Only for an endpoint whose success is the repository's Schema (or its page envelope) with status
 * 200: `document-forms.test.ts` checks that these answers equal the encoded ones, byte for byte.
 */
import { HttpServerResponse } from "@effect/platform"
import { Schema } from "effect"

/** A document's JSON text as the 200 response of a read by id. */
export const storedResponse = (text: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.raw(text, { contentType: "application/json", contentLength: Buffer.byteLength(text) })

/** The start of an envelope's JSON when `items` is its first field and empty. */
const emptyItems = "{\"items\":[]"

/**
 * For a page envelope Schema whose first field is `items` (`V4Page(X)`, `V5List(X)`): a page whose
 * items are JSON texts, as the response encoding the page (items decoded) would answer: the
 * envelope encoded without its items, the texts spliced in. Dies if `items` is not first.
 */
export const pageResponse = <P extends { readonly items: ReadonlyArray<unknown> }>(envelope: Schema.Schema<P, any, never>) => {
  const encode = Schema.encodeSync(envelope)
  return (page: Omit<P, "items"> & { readonly items: ReadonlyArray<string> }): HttpServerResponse.HttpServerResponse => {
    const empty = JSON.stringify(encode({ ...page, items: [] } as unknown as P))
    if (!empty.startsWith(emptyItems)) throw new Error(`page envelope does not start with its items: ${empty.slice(0, 40)}`)
    return storedResponse(`{"items":[${page.items.join(",")}]${empty.slice(emptyItems.length)}`)
  }
}
