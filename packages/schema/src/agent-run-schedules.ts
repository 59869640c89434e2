/**
 * Agent run schedules of agentex (docs/agent-tasks.md "Run schedules"): a schedule runs an agent
 * on a cadence (a cron expression in a time zone, or every `interval_seconds`), each fire a task
 * of its own with the schedule's params and metadata and its first input delivered.
 */
import { Cron, DateTime, Either, Schema } from "effect"
import { MessageAuthor } from "./agent-tasks.js"
import { DateTimeString, Id, JsonObject, Nullable, Optional, QueryBoolean } from "./common.js"

/** A schedule's name: lower-case letters, digits and inner dashes, 1 to 64 (agentex's rule). */
export const RunScheduleName = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9-]*[a-z0-9]$|^[a-z0-9]$/, {
    message: () => "A schedule name is lower-case letters, digits and dashes, starting and ending with a letter or digit"
  }),
  Schema.maxLength(64)
)

/** An IANA time zone name (`Europe/Paris`, `UTC`); one the runtime does not know is refused. */
export const TimeZoneName = Schema.String.pipe(
  Schema.filter((zone) => DateTime.zoneMakeNamed(zone)._tag === "Some", { message: () => "Unknown time zone" }),
  // property-based tests: generate known zones directly (a random string is almost never one)
  Schema.annotations({ identifier: "TimeZoneName", arbitrary: () => (fc) => fc.constantFrom("UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata") })
)

/** A cron expression of five (or six, with seconds) fields; weekday and month names are taken (`0 17 * * MON-FRI`); one that never matches a date is refused. */
export const CronExpression = Schema.String.pipe(
  Schema.maxLength(200),
  Schema.filter((cron) => {
    const parsed = Cron.parse(cron)
    if (Either.isLeft(parsed)) return `Invalid cron expression: ${parsed.left.message}`
    // one that parses but never matches (`0 0 30 2 *`) has no next time: refused too
    try {
      Cron.next(parsed.right, new Date(0))
      return true
    } catch {
      return "Invalid cron expression: it never matches a date"
    }
  }),
  Schema.annotations({
    identifier: "CronExpression",
    // property-based tests: generate valid expressions directly (a random string almost never parses)
    arbitrary: () => (fc) => fc.constantFrom("0 17 * * MON-FRI", "*/10 * * * *", "0 0 * * *", "30 8 1 * *", "15 * * * * *")
  })
)

/** The first input of each run (agentex's `ScheduleInitialInput`), with its defaults filled in. */
export class ScheduleInitialInput extends Schema.Class<ScheduleInitialInput>("ScheduleInitialInput")({
  content: Schema.String,
  author: MessageAuthor,
  type: Schema.Literal("text")
}) {}

/** The first input as a request gives it: `author` (default `user`) and `type` (`text`) may be left out. */
export const ScheduleInitialInputInput = Schema.Struct({
  content: Schema.String,
  author: Schema.optionalWith(MessageAuthor, { exact: true, nullable: true }),
  type: Schema.optionalWith(Schema.Literal("text"), { exact: true, nullable: true })
}).annotations({ identifier: "ScheduleInitialInputInput" })

/** Who made a schedule (copied from the caller at create; never credentials). */
export class CreatorPrincipal extends Schema.Class<CreatorPrincipal>("CreatorPrincipal")({
  account_id: Nullable(Schema.String),
  principal_type: Nullable(Schema.String),
  service_account_id: Nullable(Schema.String),
  user_id: Nullable(Schema.String)
}) {}

/** `ACTIVE` or `PAUSED`. */
export const RunScheduleState = Schema.Literal("ACTIVE", "PAUSED").annotations({ identifier: "RunScheduleState" })

/**
 * A run schedule as answered (AX `types/agents/schedule_create_response.py`, the same for every
 * method but delete and list): every field present, `null` where none. The live fields
 * (`next_action_times`, `skipped_action_times`, `last_action_time`, `num_actions_taken`) are
 * read from the firing's own tables when `live_data_available` is true; `[]`, `null` and 0 when it
 * is `null` (a list without `include_live`).
 */
export class RunSchedule extends Schema.Class<RunSchedule>("RunSchedule")({
  id: Id,
  agent_id: Id,
  name: Schema.String,
  description: Nullable(Schema.String),
  initial_input: ScheduleInitialInput,
  /** `message/send` for a sync agent, `event/send` for an async one (from the agent, at answer time). */
  initial_input_method: Schema.String,
  cron_expression: Nullable(Schema.String),
  interval_seconds: Nullable(Schema.Int),
  timezone: Schema.String,
  start_at: Nullable(DateTimeString),
  end_at: Nullable(DateTimeString),
  paused: Schema.Boolean,
  task_params: Nullable(JsonObject),
  task_metadata: Nullable(JsonObject),
  creator_principal: CreatorPrincipal,
  created_at: DateTimeString,
  updated_at: DateTimeString,
  state: RunScheduleState,
  next_action_times: Schema.Array(DateTimeString),
  skipped_action_times: Schema.Array(DateTimeString),
  last_action_time: Nullable(DateTimeString),
  num_actions_taken: Schema.Int,
  live_data_available: Nullable(Schema.Boolean)
}) {}

const IntervalSeconds = Schema.Int.pipe(Schema.between(1, 366 * 24 * 3600))
const TaskObject = JsonObject

/**
 * `POST /agents/{agent_id}/schedules`: exactly one of `cron_expression` and `interval_seconds`
 * (checked by the server: 422). `timezone` (default `UTC`) is used by cron schedules only.
 */
export class CreateRunSchedule extends Schema.Class<CreateRunSchedule>("ScheduleCreate")({
  name: RunScheduleName,
  initial_input: ScheduleInitialInputInput,
  cron_expression: Optional(CronExpression),
  interval_seconds: Optional(IntervalSeconds),
  timezone: Optional(TimeZoneName),
  start_at: Optional(DateTimeString),
  end_at: Optional(DateTimeString),
  paused: Optional(Schema.Boolean),
  description: Optional(Schema.String.pipe(Schema.maxLength(10_000))),
  task_params: Optional(TaskObject),
  task_metadata: Optional(TaskObject)
}) {}

/** A field of an update: left out (unchanged) or given, `null` included (what `null` does depends on the field). */
const Patch = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(Schema.NullOr(schema), { exact: true })

/**
 * `PATCH /agents/{agent_id}/schedules/{id}`: only the keys given are applied. `null` clears
 * `description`, `task_params`, `task_metadata`, `start_at`, `end_at` and the cadence; it is
 * ignored for `timezone`, `paused` and `initial_input`. Setting one cadence clears the other.
 */
export class UpdateRunSchedule extends Schema.Class<UpdateRunSchedule>("ScheduleUpdate")({
  name: Patch(RunScheduleName),
  description: Patch(Schema.String.pipe(Schema.maxLength(10_000))),
  cron_expression: Patch(CronExpression),
  interval_seconds: Patch(IntervalSeconds),
  timezone: Patch(TimeZoneName),
  start_at: Patch(DateTimeString),
  end_at: Patch(DateTimeString),
  paused: Patch(Schema.Boolean),
  task_params: Patch(TaskObject),
  task_metadata: Patch(TaskObject),
  initial_input: Patch(ScheduleInitialInputInput)
}) {}

/** `POST …/pause`, `…/resume`: an optional note (not stored); the body may be absent or `null`. */
export const ScheduleNote = Schema.Struct({ note: Optional(Schema.String) }).annotations({ identifier: "ScheduleNote" })

/** A date-time that must carry its offset (`Z` or `±hh:mm`). */
const AwareDateTime = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: () => "Input should be a valid ISO 8601 date-time"
  }),
  Schema.filter((s) => /(Z|[+-]\d{2}:?\d{2})$/i.test(s), { message: () => "scheduled_time must include timezone information." }),
  Schema.annotations({
    identifier: "AwareDateTime",
    jsonSchema: { type: "string", format: "date-time" },
    // property-based tests: generate valid timestamps directly (a filtered string would never match)
    arbitrary: () => (fc) =>
      fc.date({ min: new Date("1970-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true })
        .map((d) => d.toISOString())
  })
)

/** `POST …/skip` and `…/unskip`: one upcoming fire time, with its offset. */
export class ScheduleSkip extends Schema.Class<ScheduleSkip>("ScheduleSkip")({
  scheduled_time: AwareDateTime
}) {}

/** `GET /agents/{agent_id}/schedules`: `include_live` (default false) reads the live fields; `limit` 1 to 1000 (default 100). */
export const RunSchedulesListQuery = Schema.Struct({
  include_live: Schema.optionalWith(QueryBoolean, { exact: true }),
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000)), { exact: true })
})

/** The list's envelope: `total` is the number answered (agentex's), not a count of all. */
export class RunScheduleList extends Schema.Class<RunScheduleList>("ScheduleListResponse")({
  run_schedules: Schema.Array(RunSchedule),
  total: Schema.Int
}) {}
