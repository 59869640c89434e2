import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const task_id = "trip-1"
const first = await platform.events.append({
  payload: { task_id, agent_id: "planner", content: { type: "text", author: "user", content: "Plan a trip" } }
})
await platform.events.append({ payload: { task_id, agent_id: "booker", content: { type: "data", data: { seats: 2 } } } })
await platform.events.append({ payload: { task_id, agent_id: "planner", content: { type: "text", content: "Day 1: Lisbon" } } })
const all = await platform.events.list({ urlParams: { task_id, agent_id: "planner" } })
const after = await platform.events.list({ urlParams: { task_id, agent_id: "planner", last_processed_event_id: first.id } })
const event = await platform.events.get({ path: { event_id: first.id } })
console.log(all.map((each) => each.sequence_id), after.map((each) => each.sequence_id), event.content)
await platform.close()
