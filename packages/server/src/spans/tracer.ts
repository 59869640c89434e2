/**
 * The kit's own traces (docs/spans.md "The kit's own traces"): the work the kit does for a caller
 * (an application's process and its nodes, a model execution, an evaluation's items and tasks, an
 * agent's RPC) as v5 spans of the caller's account, searchable like any span.
 *
 * A span is made by `recordedSpan`, through Effect's tracing (`Effect.useSpan`) with this
 * module's `Tracer` for the span alone: its body runs with the tracer and the tracing switch it
 * found (the standalone server's tracing stays off, so no request or SQL statement span is made
 * inside it; an embedding program's own tracer still gets its spans, under the kit's). A recorded
 * span inside another takes its trace, its account and its caller; a span without an account is
 * not stored. A span that ends is pushed to a buffer (nothing else on the request's path); a fiber
 * of `TraceRecordingLive` writes the buffer in batches (`SpansRepo.upsert`), every `intervalMillis`
 * or every `batchSpans` spans, and what is left when the layer closes (within
 * `closeDeadlineMillis`, stopping at a batch that fails: a database that is down cannot hold the
 * shutdown; what is dropped is counted in a warning). Without the layer (an
 * embedding program that does not provide it), or with `PLATFORM_TRACE_RECORDING=off`,
 * `recordedSpan` is the identity.
 */
import { SqlClient } from "@effect/sql"
import { CurrentCaller } from "@platform-kit/api"
import { Span, type SpanType } from "@platform-kit/schema"
import { Cause, Clock, Context, Deferred, Effect, Exit, type Fiber, FiberId, FiberRef, Layer, Option, Tracer } from "effect"
import { dual } from "effect/Function"
import * as Crypto from "node:crypto"
import { TraceRecording } from "../config.js"
import { BackgroundSql } from "../sql/database.js"
import { isoOfParts } from "./instants.js"
import { SpansRepo } from "./SpansRepo.js"

/** Spans written in one batch at most (one statement: `SpansRepo.upsert`'s rows per statement). */
export const batchSpans = 500
/** How often the buffer is written (ms). */
export const intervalMillis = 250
/** Spans the buffer holds at most: beyond, the oldest are dropped (and counted in a warning). */
export const bufferCapacity = 10_000
/** How long the close-time flush may take at most (ms): the spans still unwritten then are dropped. */
export const closeDeadlineMillis = 5_000
/** The longest JSON text an `input`, `output` or `metadata` is stored with; a longer one is cut (`{truncated, length}`). */
const maxJsonChars = 32_768

/** Who a span was made for (`created_by`), when its root is given none and runs in no request: the kit itself. */
const kitIdentity = { id: "platform-kit", type: "platform" }

/** What a recorded span is given (`recordedSpan`'s options); each field inherited from the parent span where said. */
export interface RecordedSpanOptions<A = unknown> {
  /** The account the span is stored in; a child takes its parent's. */
  readonly accountId?: string | undefined
  /**
   * The identity the work is done for (`created_by`); a child takes its parent's, a root given none
   * the request's caller, else the kit's own (`{id: "platform-kit", type: "platform"}`).
   */
  readonly createdBy?: { readonly id: string; readonly type: string } | undefined
  /** The application variant the work is of (`application_variant_id`); a child takes its parent's. */
  readonly variantId?: string | undefined
  readonly type?: SpanType | undefined
  /** The span's `metadata` (more added by `attributesOf` and `annotateRecordedSpan`). */
  readonly attributes?: Readonly<Record<string, unknown>> | undefined
  /** The span's `input` (an object as it is, any other value as `{value}`). */
  readonly input?: unknown
  /** The span's `output`, from the answer. */
  readonly output?: ((answer: A) => unknown) | undefined
  /** More `metadata`, from the answer (a model's usage). */
  readonly attributesOf?: ((answer: A) => Readonly<Record<string, unknown>>) | undefined
  /** An answer that is a failure (an RPC's error response): its message makes the span an `ERROR`. */
  readonly errorOf?: ((answer: A) => string | null | undefined) | undefined
}

/**
 * The options of the span being made, handed to the tracer in the span's context, with the
 * request's caller (the `created_by` of a root given none).
 */
class SpanRequest extends Context.Tag("@platform-kit/server/spans/SpanRequest")<SpanRequest, {
  readonly options: RecordedSpanOptions<any>
  readonly caller: { readonly id: string; readonly type: string } | undefined
}>() {}

/** What the tracer is handed for a span made in `fiber` with `options`. */
const spanRequest = (fiber: Fiber.RuntimeFiber<any, any>, options: RecordedSpanOptions<any>) => {
  const caller = options.createdBy === undefined ? Context.getOption(fiber.currentContext, CurrentCaller) : Option.none()
  return Context.make(SpanRequest, {
    options,
    caller: caller._tag === "Some" ? { id: caller.value.identityId, type: caller.value.identityType } : undefined
  })
}

/** A span of the kit's tracer: Effect's `Span`, with what its v5 span is written from. */
class RecordedSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly sampled = true
  status: Tracer.SpanStatus
  readonly attributes = new Map<string, unknown>()
  readonly links: Array<Tracer.SpanLink>
  /** The monotonic clock at the start: a span's end, and a child's start, are measured from it. */
  readonly startPerf = performance.now()
  /**
   * The start in epoch ms, with the microseconds: a root's is the wall clock's, a child's its
   * parent's start plus the time measured since (so a trace's times are consistent to the µs).
   */
  readonly startMs: number
  durationMs = 0
  exit: Exit.Exit<unknown, unknown> | undefined
  output: unknown = undefined
  /** The failure an answer stands for (`errorOf`). */
  answeredError: string | undefined

  constructor(
    readonly name: string,
    readonly spanId: string,
    readonly traceId: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly parentId: string | null,
    readonly context: Context.Context<never>,
    links: ReadonlyArray<Tracer.SpanLink>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind,
    readonly accountId: string | undefined,
    readonly createdBy: { readonly id: string; readonly type: string },
    readonly variantId: string | undefined,
    readonly type: SpanType | undefined,
    readonly input: unknown,
    above: RecordedSpan | undefined,
    private readonly ended: (span: RecordedSpan) => void
  ) {
    this.links = [...links]
    this.status = { _tag: "Started", startTime }
    this.startMs = above === undefined ? Date.now() : above.startMs + (this.startPerf - above.startPerf)
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    this.durationMs = performance.now() - this.startPerf
    this.exit = exit
    if (this.accountId !== undefined) this.ended(this)
  }

  attribute(key: string, value: unknown): void {
    this.attributes.set(key, value)
  }

  event(): void {}

  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.links.push(...links)
  }
}

/** The nearest recorded span at or above `span` (through Effect's other spans: the SQL statements', an embedding program's). */
const recordedAt = (span: Option.Option<Tracer.AnySpan>): RecordedSpan | undefined => {
  let at = span
  while (at._tag === "Some") {
    const value = at.value
    if (value instanceof RecordedSpan) return value
    if (value._tag !== "Span") return undefined
    at = value.parent
  }
  return undefined
}

/** A tracer whose spans, once ended with an account, go to `ended`. */
const makeTracer = (ended: (span: RecordedSpan) => void) =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const { caller, options } = Context.getOrElse(context, SpanRequest, () => ({ options: {} as RecordedSpanOptions, caller: undefined }))
      const above = recordedAt(parent)
      const span = new RecordedSpan(
        name,
        Crypto.randomUUID(),
        above?.traceId ?? Crypto.randomUUID(),
        parent,
        above?.spanId ?? null,
        context,
        links,
        startTime,
        kind,
        options.accountId ?? above?.accountId,
        options.createdBy ?? above?.createdBy ?? caller ?? kitIdentity,
        options.variantId ?? above?.variantId,
        options.type,
        options.input,
        above,
        ended
      )
      for (const [key, value] of Object.entries(options.attributes ?? {})) span.attributes.set(key, value)
      return span
    },
    context: (f) => f()
  })

/** The kit's tracer, when spans are recorded (the layer given and recording on). */
export class TraceRecorder extends Context.Tag("@platform-kit/server/TraceRecorder")<TraceRecorder, {
  /** The tracer of recorded spans; none when recording is off. */
  readonly tracer: Tracer.Tracer | undefined
  /** Writes what the buffer holds now (what the layer's fiber does every `intervalMillis`). */
  readonly flush: Effect.Effect<void>
}>() {}

/** The answer `options` make of `answer` on the span, set before the span ends. */
const settle = <A>(span: RecordedSpan, options: RecordedSpanOptions<A>, answer: A) => {
  if (options.output !== undefined) span.output = options.output(answer)
  if (options.attributesOf !== undefined) for (const [key, value] of Object.entries(options.attributesOf(answer))) span.attributes.set(key, value)
  const failed = options.errorOf?.(answer)
  if (typeof failed === "string") span.answeredError = failed
}

/** `effect` as a recorded span, or `effect` as it is without the kit's tracer. */
const recordedSpanOf = <A, E, R>(effect: Effect.Effect<A, E, R>, name: string, options: RecordedSpanOptions<A>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime<A, E, R>((fiber) => {
    const recorder = Context.getOption(fiber.currentContext, TraceRecorder)
    if (recorder._tag === "None" || recorder.value.tracer === undefined) return effect
    const outerTracer = fiber.currentTracer
    const outerEnabled = fiber.getFiberRef(FiberRef.currentTracerEnabled)
    return Effect.useSpan(name, { context: spanRequest(fiber, options), captureStackTrace: false }, (span) => {
      // the body as the tracing it was called with had it: no span of Effect's made where tracing is off
      const body = Effect.withTracerEnabled(Effect.withTracer(effect, outerTracer), outerEnabled)
      const settled = span instanceof RecordedSpan ? Effect.tap(body, (answer) => Effect.sync(() => settle(span, options, answer))) : body
      return Effect.withParentSpan(settled, span)
    }).pipe(Effect.withTracer(recorder.value.tracer), Effect.withTracerEnabled(true))
  })

/**
 * `effect` as a recorded span `name` (see the module comment): a child of the recorded span it
 * runs in, else the root of a trace of its own. Without the kit's tracer, `effect` as it is.
 * Data first when `options` read the answer (`output`, `attributesOf`, `errorOf`), so its type is
 * the effect's.
 */
export const recordedSpan: {
  (name: string, options?: RecordedSpanOptions<unknown>): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, name: string, options?: RecordedSpanOptions<NoInfer<A>>): Effect.Effect<A, E, R>
} = dual(
  (args) => Effect.isEffect(args[0]),
  <A, E, R>(effect: Effect.Effect<A, E, R>, name: string, options: RecordedSpanOptions<A> = {}) => recordedSpanOf(effect, name, options)
)

/** Adds `attributes` to the `metadata` of the recorded span the caller runs in (none: nothing). */
export const annotateRecordedSpan = (attributes: Readonly<Record<string, unknown>>): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const span = recordedAt(Context.getOption(fiber.currentContext, Tracer.ParentSpan))
    if (span !== undefined) for (const [key, value] of Object.entries(attributes)) span.attributes.set(key, value)
    return Effect.void
  })

/** A recorded span begun by `openRecordedSpan`: ended by hand (a stream's end). */
export interface OpenSpan {
  /** Ends the span: a success with `output` and more `metadata`, a failure with its message, or canceled. */
  readonly end: (
    outcome:
      | { readonly _tag: "Success"; readonly output?: unknown; readonly attributes?: Readonly<Record<string, unknown>> }
      | { readonly _tag: "Failure"; readonly message: string; readonly attributes?: Readonly<Record<string, unknown>> }
      | { readonly _tag: "Canceled"; readonly attributes?: Readonly<Record<string, unknown>> }
  ) => void
  /** `effect` with this span as its parent (so recorded spans in it are its children). */
  readonly within: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

const noOpenSpan: OpenSpan = { end: () => {}, within: (effect) => effect }

/**
 * A recorded span `name` begun now, ended by hand: for work whose end is not an effect's (a
 * stream, ended when it is). Without the kit's tracer, one that records nothing.
 */
export const openRecordedSpan = (name: string, options: RecordedSpanOptions = {}): Effect.Effect<OpenSpan> =>
  Effect.withFiberRuntime((fiber) => {
    const recorder = Context.getOption(fiber.currentContext, TraceRecorder)
    if (recorder._tag === "None" || recorder.value.tracer === undefined) return Effect.succeed(noOpenSpan)
    return Effect.makeSpan(name, { context: spanRequest(fiber, options), captureStackTrace: false }).pipe(
      Effect.withTracer(recorder.value.tracer),
      Effect.withTracerEnabled(true),
      Effect.map((span): OpenSpan => {
        if (!(span instanceof RecordedSpan)) return noOpenSpan
        return {
          end: (outcome) => {
            for (const [key, value] of Object.entries(outcome.attributes ?? {})) span.attributes.set(key, value)
            if (outcome._tag === "Success") {
              span.output = outcome.output
              span.end(BigInt(0), Exit.void)
            } else if (outcome._tag === "Failure") span.end(BigInt(0), Exit.fail({ message: outcome.message }))
            else span.end(BigInt(0), Exit.interrupt(FiberId.none))
          },
          within: (effect) => Effect.withParentSpan(effect, span)
        }
      })
    )
  })

/** A failure's message: its `detail` (the kit's errors), `message` or `error` when a text, else the failure as JSON. */
const messageOf = (failure: unknown): string => {
  if (typeof failure === "string") return failure
  if (typeof failure === "object" && failure !== null) {
    for (const key of ["detail", "message", "error"]) {
      const value = (failure as Record<string, unknown>)[key]
      if (typeof value === "string") return value
    }
  }
  try {
    return JSON.stringify(failure) ?? String(failure)
  } catch {
    return String(failure)
  }
}

/** `value` as a JSON object a span stores: an object as it is, anything else as `{value}`; cut when too long. */
const jsonObject = (value: unknown): Record<string, unknown> | null => {
  if (value === undefined || value === null) return null
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch {
    text = JSON.stringify(String(value))
  }
  if (text === undefined) return null
  if (text.length > maxJsonChars) return { truncated: text.slice(0, 1000), length: text.length }
  const parsed = JSON.parse(text)
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : { value: parsed }
}

/** The v5 span of a recorded span that ended. */
const spanOf = (span: RecordedSpan): Span => {
  const exit = span.exit ?? Exit.void
  const interrupted = Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
  const failure = Exit.isFailure(exit)
    ? interrupted
      ? undefined
      : Option.match(Cause.failureOption(exit.cause), {
        onNone: () => messageOf(Cause.squash(exit.cause)),
        onSome: messageOf
      })
    : span.answeredError
  const metadata: Record<string, unknown> = Object.fromEntries(span.attributes)
  if (failure !== undefined) metadata.error = failure
  const at = (ms: number) => {
    const whole = Math.floor(ms)
    return isoOfParts(whole, Math.min(999, Math.floor((ms - whole) * 1000)))
  }
  return new Span({
    id: span.spanId,
    account_id: span.accountId!,
    name: span.name,
    start_timestamp: at(span.startMs),
    trace_id: span.traceId,
    application_interaction_id: null,
    application_variant_id: span.variantId ?? null,
    created_by: { id: span.createdBy.id, type: span.createdBy.type, object: "identity" } as Span["created_by"],
    end_timestamp: at(span.startMs + span.durationMs),
    group_id: null,
    input: jsonObject(span.input),
    metadata: jsonObject(metadata),
    object: "span",
    output: jsonObject(span.output),
    parent_id: span.parentId,
    status: interrupted ? "CANCELED" : failure !== undefined ? "ERROR" : "SUCCESS",
    type: span.type ?? null
  }, true)
}

/** The wall clock: the writer's interval is real time even where a test's clock is not. */
const wallClock = Clock.make()

/** The recorder: the buffer, the tracer that fills it, the fiber that writes it (in `scope`'s life). */
const makeRecorder = Effect.gen(function*() {
  const background = yield* Effect.serviceOption(BackgroundSql)
  const sql = Option.isSome(background) ? background.value : yield* SqlClient.SqlClient
  const repo = yield* SpansRepo.pipe(Effect.provide(SpansRepo.Default), Effect.provideService(SqlClient.SqlClient, sql))
  const buffer: Array<RecordedSpan> = []
  let dropped = 0
  let full: Deferred.Deferred<void> | undefined

  const ended = (span: RecordedSpan) => {
    if (buffer.length >= bufferCapacity) {
      buffer.shift()
      dropped++
    }
    buffer.push(span)
    if (full !== undefined && buffer.length >= batchSpans) {
      Deferred.unsafeDone(full, Exit.void)
      full = undefined
    }
  }

  /** Writes `taken` (out of the buffer): true when written, false (and a warning) when it could not be. */
  const write = (taken: Array<RecordedSpan>): Effect.Effect<boolean> =>
    Effect.suspend(() => repo.upsert(taken.map(spanOf))).pipe(
      Effect.as(true),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : Effect.as(Effect.logWarning(`${taken.length} of the kit's own spans could not be written`, cause), false)
      )
    )

  /**
   * Writes the buffer, `batchSpans` at a time; a batch that cannot be written is dropped with a
   * warning. Interrupted (the layer closes), the batch in progress goes back to the buffer for the
   * close-time flush (an upsert: a batch written twice is harmless), so a database that hangs
   * cannot hold the close.
   */
  const flush: Effect.Effect<void> = Effect.suspend(function loop(): Effect.Effect<void> {
    if (buffer.length === 0) return Effect.void
    const taken = buffer.splice(0, batchSpans)
    return write(taken).pipe(
      Effect.onInterrupt(() => Effect.sync(() => buffer.unshift(...taken))),
      Effect.zipRight(Effect.suspend(loop))
    )
  })

  /**
   * The close-time flush, bounded: it stops at the first batch that cannot be written (the database
   * is likely down: each further batch would wait out the connection timeout) and at
   * `closeDeadlineMillis`, and says how many spans it leaves unwritten.
   */
  const closeFlush: Effect.Effect<void> = Effect.suspend(() => {
    let inFlight = 0
    const loop: Effect.Effect<boolean> = Effect.suspend(() => {
      if (buffer.length === 0) return Effect.succeed(true)
      const taken = buffer.splice(0, batchSpans)
      inFlight = taken.length
      return write(taken).pipe(
        Effect.tap(() => Effect.sync(() => (inFlight = 0))),
        Effect.flatMap((written) => written ? loop : Effect.succeed(false))
      )
    })
    // interruptible (a finalizer is not) so that the deadline can stop a write in progress
    return Effect.interruptible(loop).pipe(
      Effect.timeout(closeDeadlineMillis),
      Effect.map((written) => written ? undefined : "a batch could not be written"),
      Effect.catchTag("TimeoutException", () => Effect.succeed(`not written within ${closeDeadlineMillis} ms`)),
      Effect.flatMap((reason) => {
        const left = inFlight + buffer.length
        buffer.length = 0
        return reason === undefined || left === 0
          ? Effect.void
          : Effect.logWarning(`${left} of the kit's own spans were dropped at close: ${reason}`)
      }),
      Effect.withClock(wallClock)
    )
  })

  const writer = Effect.gen(function*() {
    for (;;) {
      if (buffer.length < batchSpans) {
        const signal = yield* Deferred.make<void>()
        full = signal
        yield* Effect.raceFirst(Deferred.await(signal), Effect.sleep(intervalMillis))
        full = undefined
      }
      yield* flush
      if (dropped > 0) {
        const count = dropped
        dropped = 0
        yield* Effect.logWarning(`${count} of the kit's own spans were dropped: more than ${bufferCapacity} waited to be written`)
      }
    }
  }).pipe(Effect.withClock(wallClock))

  // closed: the writer stops (a write in progress back to the buffer), then what is left is written, within a deadline
  yield* Effect.addFinalizer(() => closeFlush)
  yield* Effect.forkScoped(writer)
  return { tracer: makeTracer(ended), flush }
})

/**
 * The kit's tracer and its writer (`PLATFORM_TRACE_RECORDING`, on by default): what the standalone
 * server and the test kit provide, and an embedding program may. Needs `SqlClient` (or
 * `BackgroundSql` when given: the writes are background work); closes after what records spans,
 * before the database.
 */
export const TraceRecordingLive: Layer.Layer<TraceRecorder, never, SqlClient.SqlClient> = Layer.scoped(
  TraceRecorder,
  Effect.gen(function*() {
    const setting = yield* Effect.orDie(TraceRecording)
    return setting === "off" ? { tracer: undefined, flush: Effect.void } : yield* makeRecorder
  })
)
