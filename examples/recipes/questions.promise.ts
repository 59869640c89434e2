import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
const helpful = await platform.questions.create({
  payload: {
    type: "categorical", title: "Helpful", prompt: "Did the answer solve the problem?", account_id,
    choices: [{ label: "Yes", value: "yes" }, { label: "No", value: "no" }]
  }
})
await platform.questions.create({
  payload: {
    type: "rating", title: "Tone", prompt: "How friendly was the answer?", account_id,
    ratingOptions: { minLabel: "curt", maxLabel: "warm", scaleSteps: 5 }
  }
})
const page = await platform.questions.list({ urlParams: { limit: 10 } })
console.log(helpful.choices, page.items.map((item) => `${item.type} ${item.title}`))
// the same questions through v5: `question_type`, `name`, one `configuration`
const accurate = await platform.questionsV5.create({
  payload: { question_type: "categorical", name: "Accurate", prompt: "Is every fact right?", configuration: { choices: ["yes", "no"] } }
})
const asV4 = await platform.questions.get({ path: { question_id: accurate.id } })
console.log(accurate.configuration, asV4.choices)
await platform.close()
