import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
const question = await platform.questions.create({
  payload: { type: "free_text", title: "Accurate", prompt: "Is it accurate?", account_id }
})
const set = await platform.questionSets.create({
  payload: { account_id, name: "Quality", question_ids: [question.id] }
})
const config = await platform.evaluationConfigs.create({
  payload: {
    evaluation_type: "studio", question_set_id: set.id, account_id,
    auto_evaluation_model: "gpt-4o-mini", auto_evaluation_parameters: { temperature: 0.2 }
  }
})
const again = await platform.evaluationConfigs.get({ path: { evaluation_config_id: config.id } })
const page = await platform.evaluationConfigs.list({ urlParams: { account_id } })
console.log(again.auto_evaluation_parameters, page.items.some((item) => item.id === config.id))
await platform.close()
