/**
 * Training datasets for the tests that need one (a fine-tuning job names one): the form of
 * `POST /v4/training-datasets` and an upload of a small file through the typed client.
 */
import type { Client } from "@platform-kit/client"
import { Effect } from "effect"

/** The form of an upload: the file (a name and its text) and the fields given. */
export const datasetForm = (
  file: { readonly name: string; readonly content: string } | undefined,
  fields: Readonly<Record<string, string>>
) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.append(name, value)
  if (file !== undefined) data.append("file", new Blob([file.content], { type: "text/plain" }), file.name)
  return data
}

/** A `GENERATION` dataset of `account_id` with one row (or `rows`), uploaded as JSON Lines: its id. */
export const uploadDataset = (
  caller: { readonly accountId: string; readonly client: Client },
  rows: ReadonlyArray<{ readonly input: string; readonly output: string }> = [{ input: "2 + 2?", output: "4" }],
  name = "dataset"
) =>
  Effect.map(
    caller.client.trainingDatasets.create({
      payload: datasetForm(
        { name: `${name}.jsonl`, content: rows.map((row) => JSON.stringify(row)).join("\n") },
        { account_id: caller.accountId, name, schema_type: "GENERATION" }
      )
    }),
    (dataset) => dataset.id
  )

/**
 * `uploadDataset` over plain HTTP, for the tests that run the server as a process: a dataset of
 * `accountId` on the server at `port`, its id.
 */
export const uploadDatasetOverHttp = async (port: number, key: string, accountId: string): Promise<string> => {
  const response = await fetch(`http://127.0.0.1:${port}/v4/training-datasets`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: datasetForm(
      { name: "train.jsonl", content: JSON.stringify({ input: "2 + 2?", output: "4" }) },
      { account_id: accountId, name: "train", schema_type: "GENERATION" }
    )
  })
  const body = (await response.json()) as { readonly id?: string }
  if (response.status !== 200 || body.id === undefined) throw new Error(`training dataset upload: ${response.status} ${JSON.stringify(body)}`)
  return body.id
}
