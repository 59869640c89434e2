import { ArtifactSchemaGeneration, SchemaGenerationBase } from "@platform-kit/schema"
import type { GenerationTestCaseData, GenerationTestCaseDataInput } from "@platform-kit/schema"

/** The `test_case_data` a body gives, as a response carries it (every field, `null` when empty). */
export const testCaseDataOf = (data: GenerationTestCaseDataInput): GenerationTestCaseData => {
  const common = {
    input: data.input,
    expected_output: data.expected_output ?? null,
    expected_extra_info: data.expected_extra_info ?? null
  }
  return data.artifact_ids_filter === undefined
    ? new SchemaGenerationBase({ ...common, artifact_ids_filter: null })
    : new ArtifactSchemaGeneration({ ...common, artifact_ids_filter: data.artifact_ids_filter }, true)
}
