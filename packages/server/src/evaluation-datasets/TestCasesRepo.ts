import { TestCase } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDatasetChildren } from "./datasetChildren.js"

/** The test cases as they are now; `archived_at` is a column so their list hides archived ones (migration 0068). */
export class TestCasesRepo extends Effect.Service<TestCasesRepo>()("@platform-kit/server/TestCasesRepo", {
  effect: makeDatasetChildren({
    table: "evaluation_test_cases",
    label: "Test case",
    schema: TestCase,
    extraColumns: (testCase) => ({ archived_at: testCase.archived_at })
  })
}) {}
