import type { CreateFineTuningJob } from "@platform-kit/schema"
import { FineTuningJob, GenericDeleteResponse, LaunchFineTuningJobConfiguration, pageOf } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { freshIdentity } from "../platform/Ids.js"
import { TrainingDatasetsRepo } from "../training-datasets/TrainingDatasetsRepo.js"
import { FineTuningJobsRepo } from "./FineTuningJobsRepo.js"
import { canceledEntry, createdEntry } from "./training.js"
import type { ImplementGroup } from "../http/groups.js"
import { storedResponse } from "../http/storedResponses.js"

/** The Launch configuration with every field present (`null` where not given); others as given. */
const vendorConfiguration = (config: CreateFineTuningJob["vendor_configuration"]) => {
  if (config === undefined) return null
  if (config.vendor !== "LAUNCH") return config
  return new LaunchFineTuningJobConfiguration({
    vendor: "LAUNCH",
    hyperparameters: config.hyperparameters ?? null,
    tracker_config: config.tracker_config ?? null,
    suffix: config.suffix ?? null,
    output: config.output ?? null
  })
}

export const FineTuningJobsHttp = (group: ImplementGroup) =>
  group("fineTuningJobs", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* FineTuningJobsRepo
    const trainingDatasets = yield* TrainingDatasetsRepo
    const lifecycles = yield* Lifecycles
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          const [id, created_at] = yield* freshIdentity
          // the datasets are training datasets of the job's account (404 naming one otherwise),
          // read in the transaction that stores the job: a dataset's delete waits for it and
          // then sees the job (training-datasets/http.ts)
          const datasets = [payload.training_dataset_id, ...(payload.validation_dataset_id === undefined ? [] : [payload.validation_dataset_id])]
          const job = new FineTuningJob({
            id,
            // the models of fine-tuning are not stored by this service: kept as given
            training_dataset_id: payload.training_dataset_id,
            validation_dataset_id: payload.validation_dataset_id ?? null,
            base_model_id: payload.base_model_id ?? null,
            fine_tuned_model_id: payload.fine_tuned_model_id ?? null,
            status: "PENDING",
            vendor_configuration: vendorConfiguration(payload.vendor_configuration),
            account_id,
            ...(yield* createdBy),
            created_at
          }, true)
          const created = yield* repo.transaction(Effect.zipRight(
            Effect.forEach(datasets, (dataset) => trainingDatasets.get(dataset, [account_id]), { discard: true }),
            repo.create(job, [createdEntry])
          ))
          // PENDING → RUNNING → COMPLETED on the engine (fine-tuning-jobs/workflow.ts)
          yield* lifecycles.start({ workflow: "FineTuning", id, account_id })
          return created
        }))
      .handle("get", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.fine_tuning_job_id, accounts), storedResponse)))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          repo.page({ accountIds, ...pageOf(urlParams) })))
      .handle("delete", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) =>
          Effect.as(
            repo.cancelOrDelete(path.fine_tuning_job_id, accounts, canceledEntry),
            new GenericDeleteResponse({ count: 1, success: true })
          )))
      .handle("events", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => repo.events(path.fine_tuning_job_id, accounts)))
  })
).pipe(Layer.provide([FineTuningJobsRepo.Default, TrainingDatasetsRepo.Default]))
