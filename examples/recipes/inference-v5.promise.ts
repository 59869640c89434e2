import { makePromiseClient } from "@platform-kit/client"
import OpenAI from "openai"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
// OpenAI's own client on the kit's /v5: the kit's key as its API key (sent as `Authorization: Bearer`)
const openai = new OpenAI({ baseURL: `${process.env.PLATFORM_BASE_URL ?? "http://127.0.0.1:8080"}/v5`, apiKey: process.env.PLATFORM_API_KEY! })
const chat = await openai.chat.completions.create({
  model: "builtin",
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello, kit!" }]
})
let streamed = ""
for await (const chunk of await openai.chat.completions.create({ model: "builtin", messages: [{ role: "user", content: "one two three" }], stream: true })) {
  streamed += chunk.choices[0]?.delta.content ?? ""
}
const response = await openai.responses.create({ model: "builtin", instructions: "Be brief.", input: "Say hi" })
// the kit's own client on the same endpoints: what the caller may name as `model`, and a v4 beta completion
const platform = makePromiseClient()
const models = await platform.openAiInference.models({ urlParams: {} })
const beta = await platform.betaInference.completions({ payload: { model: "builtin", prompt: "once upon a time", max_tokens: 2 } })
console.log(chat.choices[0]?.message.content, streamed, response.output_text, models.items.map((m) => m.model_name), beta.choices[0]?.text)
await platform.close()
