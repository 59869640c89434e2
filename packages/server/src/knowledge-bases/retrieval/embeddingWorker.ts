/**
 * The program of the built-in embeddings' thread (embeddingThread.ts): answers each message
 * `[id, texts]` with `[id, vectors]`, the texts' built-in embeddings (models/inference/builtin.ts
 * `embedVector`) one after the other in a single `Float32Array` (`embeddingDimensions` numbers a
 * text, its buffer transferred). It runs at the nice value its `workerData` gives (Linux).
 */
import { parentPort, workerData } from "node:worker_threads"
import { embeddingDimensions, embedVector } from "../../models/inference/builtin.js"
import { niceThisThread } from "../../platform/helperThreads.js"

niceThisThread(Number(workerData?.nice ?? 0))

parentPort?.on("message", ([id, texts]: readonly [number, ReadonlyArray<string>]) => {
  const vectors = new Float32Array(texts.length * embeddingDimensions)
  texts.forEach((text, i) => vectors.set(embedVector(text), i * embeddingDimensions))
  parentPort!.postMessage([id, vectors], [vectors.buffer])
})
