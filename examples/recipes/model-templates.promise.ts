import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
const template = await platform.modelTemplates.create({
  payload: {
    account_id, name: "vllm-chat", endpoint_type: "STREAMING", model_type: "CHAT_COMPLETION",
    vendor_configuration: { bundle_config: { image: "vllm", registry: "docker.io", tag: "0.5" } },
    model_creation_parameters_schema: {
      parameters: [{ name: "max_model_len", type: "int", required: true, description: "context length" }]
    }
  }
})
const model = await platform.models.create({
  payload: { account_id, name: "my-chat", model_template_id: template.id, model_creation_parameters: { max_model_len: 8192 } }
})
const page = await platform.modelTemplates.list({ urlParams: { account_id } })
console.log(model.model_type, model.model_vendor, page.items.some((item) => item.id === template.id))
await platform.models.delete({ path: { model_id: model.id } })
await platform.modelTemplates.delete({ path: { model_template_id: template.id } })
await platform.close()
