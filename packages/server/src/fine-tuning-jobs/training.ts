/**
 * The training a fine-tuning job simulates (docs/fine-tuning-jobs.md): the kit has no trainer, so
 * a job's epochs are simulated steps of its lifecycle and its log reports a made-up but
 * deterministic loss curve: the same job always logs the same figures. Only the lifecycle's states
 * and log are real; no model is trained.
 */
import type { FineTuningJob } from "@platform-kit/schema"
import * as Crypto from "node:crypto"
import type { LogEntry } from "./FineTuningJobsRepo.js"

/** Epochs when the job's hyperparameters name none. */
export const defaultEpochs = 3
/** The most epochs a job simulates. */
export const maxEpochs = 100
/** The steps reported per simulated epoch. */
export const stepsPerEpoch = 100

/**
 * The epochs of `job`: its vendor configuration's `hyperparameters.n_epochs` (OpenAI's name) or
 * `epochs`, when an integer from 1 to `maxEpochs`; else `defaultEpochs`.
 */
export const epochsOf = (job: FineTuningJob): number => {
  const configuration = job.vendor_configuration as { readonly hyperparameters?: unknown } | null
  const hyperparameters = configuration?.hyperparameters
  if (typeof hyperparameters !== "object" || hyperparameters === null) return defaultEpochs
  const { epochs, n_epochs } = hyperparameters as Record<string, unknown>
  const given = n_epochs ?? epochs
  return typeof given === "number" && Number.isInteger(given) && given >= 1 && given <= maxEpochs ? given : defaultEpochs
}

/** The training loss `job` reports after `epoch`: from 2–3 down towards 0.05, a fixed curve per job id. */
export const lossAfter = (jobId: string, epoch: number): number => {
  const seed = Crypto.createHash("sha256").update(jobId).digest().readUInt32BE(0) / 0xffffffff
  return 0.05 + (2 + seed) * Math.exp(-0.7 * epoch)
}

export const createdEntry: LogEntry = { level: "info", message: "Fine-tuning job created, waiting for a trainer" }

export const startedEntry = (job: FineTuningJob, epochs: number): LogEntry => ({
  level: "info",
  message: `Training started (simulated): ${epochs} epochs of ${stepsPerEpoch} steps, base model ${
    job.base_model_id ?? "(default)"
  }, training dataset ${job.training_dataset_id}`
})

export const epochEntry = (jobId: string, epoch: number, epochs: number): LogEntry => ({
  level: "info",
  message: `Epoch ${epoch}/${epochs}: step ${epoch * stepsPerEpoch}, train_loss ${lossAfter(jobId, epoch).toFixed(4)}`
})

export const completedEntry = (modelId: string): LogEntry => ({
  level: "info",
  message: `Training completed: fine-tuned model ${modelId}`
})

export const failedEntry = (reason: string): LogEntry => ({ level: "error", message: `Training failed: ${reason}` })

export const canceledEntry: LogEntry = { level: "warning", message: "Fine-tuning job canceled" }
