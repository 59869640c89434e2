/**
 * What a model takes from the template it names (docs/model-templates.md "A model from a
 * template"): the template's `model_type` and vendor (`LAUNCH`) where the request leaves them out,
 * and its `model_creation_parameters_schema`, which the model's `model_creation_parameters` must
 * satisfy (every required parameter given, every declared one of its type).
 */
import {
  ModelInstanceVendor,
  type ModelTemplate,
  type ModelType,
  type ParameterSchema,
  type ParameterType,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect } from "effect"

/** Whether `value` is of the parameter type `type` (an `int` is a whole number, a `float` any number; booleans are neither). */
const ofType = (type: ParameterType, value: unknown): boolean => {
  switch (type) {
    case "str":
      return typeof value === "string"
    case "int":
      return typeof value === "number" && Number.isInteger(value)
    case "float":
      return typeof value === "number" && Number.isFinite(value)
    case "bool":
      return typeof value === "boolean"
  }
}

/** The 422 code of a value not of the parameter type, as the kit's validation answers the same types. */
const typeIssue: Record<ParameterType, { readonly type: string; readonly msg: string }> = {
  str: { type: "string_type", msg: "Input should be a valid string" },
  int: { type: "int_type", msg: "Input should be a valid integer" },
  float: { type: "number_type", msg: "Input should be a valid number" },
  bool: { type: "bool_type", msg: "Input should be a valid boolean" }
}

/**
 * The problems of `parameters` (a model's `model_creation_parameters`, `null` when none) under the
 * template's `schema`, one per parameter, at `["body", "model_creation_parameters", <name>]`: a
 * required one absent or `null` is `missing`; a declared one of another type names the type.
 * Parameters the schema does not declare are kept as given.
 */
export const parameterIssues = (
  schema: ParameterSchema | null,
  parameters: { readonly [key: string]: unknown } | null
): ReadonlyArray<ValidationIssue> =>
  (schema?.parameters ?? []).flatMap((parameter) => {
    const loc = ["body", "model_creation_parameters", parameter.name]
    const value = parameters !== null && Object.hasOwn(parameters, parameter.name) ? parameters[parameter.name] : undefined
    if (value === undefined || value === null) {
      return parameter.required
        ? [new ValidationIssue({ loc, msg: "Field required", type: "missing", input: parameters })]
        : []
    }
    return ofType(parameter.type, value) ? [] : [new ValidationIssue({ loc, ...typeIssue[parameter.type], input: value })]
  })

/** Fails with the 422 of `parameterIssues` when there is any. */
export const checkParameters = (
  template: ModelTemplate,
  parameters: { readonly [key: string]: unknown } | null
): Effect.Effect<void, ValidationError> => {
  const issues = parameterIssues(template.model_creation_parameters_schema, parameters)
  return issues.length === 0 ? Effect.void : Effect.fail(new ValidationError({ detail: issues }))
}

/**
 * The fields a model created from `template` gets: the request's where it gives them, else the
 * template's `model_type` (the same vocabulary as a model's) and vendor (`LAUNCH`, the only vendor
 * a template has); its creation parameters checked against the template's schema.
 */
export const templateDefaults = (
  template: ModelTemplate,
  request: {
    readonly model_type?: ModelType | undefined
    readonly model_vendor?: typeof ModelInstanceVendor.Type | undefined
    readonly model_creation_parameters?: { readonly [key: string]: unknown } | undefined
  }
): Effect.Effect<
  {
    readonly model_type: ModelType
    readonly model_vendor: typeof ModelInstanceVendor.Type
    readonly model_creation_parameters: { readonly [key: string]: unknown } | null
  },
  ValidationError
> => {
  const model_creation_parameters = request.model_creation_parameters ?? null
  return Effect.as(checkParameters(template, model_creation_parameters), {
    model_type: request.model_type ?? template.model_type,
    model_vendor: request.model_vendor ?? template.vendor_configuration.vendor,
    model_creation_parameters
  })
}
