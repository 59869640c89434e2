/**
 * The model templates' endpoints (`/v4/model-templates`, docs/model-templates.md): a group of its
 * own in the models family; the registry (../registry/) reads templates when a model names one.
 */
import {
  BundleConfig,
  FineTuningJobBundleConfig,
  FineTuningJobResources,
  GenericDeleteResponse,
  ModelTemplate,
  pageOf,
  TemplateEndpointConfig,
  TemplateVendorConfiguration,
  type TemplateVendorConfigurationInput,
  V4Page
} from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { pageResponse, storedResponse } from "../../http/storedResponses.js"
import { freshIdentity } from "../../platform/Ids.js"
import { ModelTemplatesRepo } from "./ModelTemplatesRepo.js"

/** `value`, or `null` when not given. */
const orNull = <A>(value: A | undefined): A | null => value ?? null

/** A create's vendor configuration as stored and answered: every field present, `vendor` `LAUNCH`. */
const vendorConfiguration = (input: typeof TemplateVendorConfigurationInput.Type) => {
  const bundle = input.bundle_config
  const endpoint = input.endpoint_config
  const fineTuning = input.fine_tuning_job_bundle_config
  const resources = fineTuning?.resources
  return new TemplateVendorConfiguration({
    vendor: "LAUNCH",
    bundle_config: new BundleConfig({
      image: bundle.image,
      registry: bundle.registry,
      tag: bundle.tag,
      command: orNull(bundle.command),
      env: orNull(bundle.env),
      healthcheck_route: orNull(bundle.healthcheck_route),
      predict_route: orNull(bundle.predict_route),
      readiness_initial_delay_seconds: orNull(bundle.readiness_initial_delay_seconds),
      streaming_command: orNull(bundle.streaming_command),
      streaming_predict_route: orNull(bundle.streaming_predict_route)
    }),
    endpoint_config: endpoint === undefined ? null : new TemplateEndpointConfig({
      cpus: orNull(endpoint.cpus),
      endpoint_type: orNull(endpoint.endpoint_type),
      gpu_type: orNull(endpoint.gpu_type),
      gpus: orNull(endpoint.gpus),
      high_priority: orNull(endpoint.high_priority),
      max_workers: orNull(endpoint.max_workers),
      memory: orNull(endpoint.memory),
      min_workers: orNull(endpoint.min_workers),
      per_worker: orNull(endpoint.per_worker),
      storage: orNull(endpoint.storage)
    }),
    fine_tuning_job_bundle_config: fineTuning === undefined ? null : new FineTuningJobBundleConfig({
      image: fineTuning.image,
      registry: fineTuning.registry,
      tag: fineTuning.tag,
      command: orNull(fineTuning.command),
      env: orNull(fineTuning.env),
      mount_location: orNull(fineTuning.mount_location),
      resources: resources === undefined ? null : new FineTuningJobResources({
        cpus: orNull(resources.cpus),
        gpu_type: orNull(resources.gpu_type),
        gpus: orNull(resources.gpus),
        memory: orNull(resources.memory),
        storage: orNull(resources.storage)
      }),
      training_dataset_schema_type: orNull(fineTuning.training_dataset_schema_type)
    }, true)
  }, true)
}

export const ModelTemplatesHttp = (group: ImplementGroup) =>
  group("modelTemplates", (handlers) =>
    Effect.gen(function*() {
      const repo = yield* ModelTemplatesRepo
      const listResponse = pageResponse(V4Page(ModelTemplate))
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            const [id, created_at] = yield* freshIdentity
            return yield* repo.insert(
              new ModelTemplate({
                id,
                name: payload.name,
                endpoint_type: payload.endpoint_type,
                model_type: payload.model_type,
                vendor_configuration: vendorConfiguration(payload.vendor_configuration),
                endpoint_protocol: orNull(payload.endpoint_protocol),
                model_creation_parameters_schema: orNull(payload.model_creation_parameters_schema),
                model_request_parameters_schema: orNull(payload.model_request_parameters_schema),
                account_id,
                ...(yield* createdBy),
                created_at
              }, true)
            )
          }))
        .handle("get", ({ path }) =>
          Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.model_template_id, accounts), storedResponse)))
        .handle("list", ({ urlParams }) =>
          Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
            Effect.map(repo.pageOfTexts({ accountIds, ...pageOf(urlParams) }), listResponse)))
        .handle("delete", ({ path }) =>
          Effect.flatMap(callerAccounts, (accounts) =>
            Effect.as(repo.removeUnused(path.model_template_id, accounts), new GenericDeleteResponse({ count: 1, success: true }))))
    })
  ).pipe(Layer.provide(ModelTemplatesRepo.Default))
