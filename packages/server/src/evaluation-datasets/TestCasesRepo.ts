import { TestCase } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDatasetChildren } from "./datasetChildren.js"

export class TestCasesRepo extends Effect.Service<TestCasesRepo>()("@platform-kit/server/TestCasesRepo", {
  effect: makeDatasetChildren({ table: "evaluation_test_cases", label: "Test case", schema: TestCase })
}) {}
