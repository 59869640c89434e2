/** Server configuration, read from the environment (README.md "Configuration"). */
import { Config } from "effect"

export const DatabaseUrl = Config.string("DATABASE_URL").pipe(Config.withDefault("sqlite:./data/platform.db"))

/** Connections each instance keeps to PostgreSQL at most (`DATABASE_URL=postgres://…`). */
export const PgPoolSize = Config.integer("PLATFORM_PG_POOL_SIZE").pipe(
  Config.validate({ message: "PLATFORM_PG_POOL_SIZE must be at least 1", validation: (n) => n >= 1 }),
  Config.withDefault(10)
)

/** The connections of background work's own pool on PostgreSQL (sql/database.ts, `BackgroundSql`). */
export const PgEnginePoolSize = Config.integer("PLATFORM_PG_ENGINE_POOL_SIZE").pipe(
  Config.validate({ message: "PLATFORM_PG_ENGINE_POOL_SIZE must be at least 1", validation: (n) => n >= 1 }),
  Config.withDefault(5)
)

export const SqliteSynchronous = Config.literal("FULL", "NORMAL", "OFF", "EXTRA")("PLATFORM_SQLITE_SYNCHRONOUS").pipe(
  Config.withDefault("FULL" as const)
)

/**
 * Who checkpoints a SQLite file's write-ahead log (docs/operations.md "Checkpoints"): `thread` (the
 * default) a thread of its own, off the one that answers requests; `writer` the writing connection
 * in its commits, as SQLite does by default.
 */
export const SqliteCheckpoints = Config.literal("thread", "writer")("PLATFORM_SQLITE_CHECKPOINTS").pipe(
  Config.withDefault("thread" as const)
)

export const Port = Config.port("PORT").pipe(Config.withDefault(8080))
export const Host = Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))

/**
 * The address clients reach the server at, when it is not the one they sent the request to (a
 * proxy that rewrites `Host`): `/openapi.json` names it as the API's server (http/docs.ts).
 */
export const PublicUrl = Config.option(
  Config.string("PLATFORM_PUBLIC_URL").pipe(
    Config.validate({
      message: "PLATFORM_PUBLIC_URL must be an http:// or https:// URL",
      validation: (url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol)
    }),
    Config.map((url) => url.replace(/\/+$/, ""))
  )
)

/**
 * `*`, or the origins a browser page may call the API from (`scheme://host[:port]`, comma-separated):
 * CORS, off without it (http/cors.ts, docs/operations.md "CORS").
 */
export const CorsOrigins = Config.option(
  Config.string("PLATFORM_CORS_ORIGINS").pipe(
    Config.map((value) => value.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")),
    Config.validate({
      message: "PLATFORM_CORS_ORIGINS must be * or a comma-separated list of origins such as http://localhost:3000",
      validation: (origins) => origins.length > 0 && (origins.length === 1 && origins[0] === "*" || origins.every(isOrigin))
    })
  )
)

/** `http://localhost:3000`: a scheme, a host and perhaps a port, nothing else (as a browser sends it). */
const isOrigin = (origin: string) => URL.canParse(origin) && new URL(origin).origin === origin

/** Largest accepted request body, in bytes (default 1 MiB). */
export const MaxBodyBytes = Config.integer("PLATFORM_MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024))

/** The key and account to make sure of on start (both optional). */
export const BootstrapKey = Config.option(Config.redacted("PLATFORM_API_KEY"))
export const BootstrapAccount = Config.option(Config.string("PLATFORM_ACCOUNT_ID"))

/**
 * How the simulated steps of lifecycles progress (docs/engine.md): `timed` (the default) waits
 * `PLATFORM_STEP_SECONDS` in each, as the platform's infrastructure would take a while;
 * `immediate` completes each as soon as the engine runs it; `manual` parks each until the control
 * plane advances it (docs/control-plane.md). The control plane can change it at run time.
 */
export const Progression = Config.literal("timed", "immediate", "manual")("PLATFORM_PROGRESSION").pipe(
  Config.withDefault("timed" as const)
)

/** How long a simulated step takes in `timed` progression, in seconds (default 3). */
export const StepSeconds = Config.number("PLATFORM_STEP_SECONDS").pipe(
  Config.validate({ message: "PLATFORM_STEP_SECONDS must be positive", validation: (n) => n > 0 }),
  Config.withDefault(3)
)

/**
 * Fault rules for lifecycles at start (docs/control-plane.md): a JSON array of
 * `{"lifecycle": …, "share": 0..1, "reason": …}`, e.g.
 * `[{"lifecycle":"fine_tuning_job","share":0.5,"reason":"GPU quota exceeded"}]`.
 */
export const LifecycleFaults = Config.option(Config.string("PLATFORM_LIFECYCLE_FAULTS"))

/**
 * Route faults at start (docs/control-plane.md): a JSON array of
 * `{"method"?, "path_prefix", "share"?, "latency_ms"?, "status"?}`.
 */
export const RouteFaults = Config.option(Config.string("PLATFORM_ROUTE_FAULTS"))

/** The control plane's key (docs/control-plane.md); the control plane is off without one. */
export const AdminKey = Config.option(Config.redacted("PLATFORM_ADMIN_KEY"))

/**
 * The folder of the local object store that `OBJECT_STORE` (and `S3`) data sources read: a bucket
 * is a folder directly under it (docs/knowledge-bases.md "The object store").
 */
export const ObjectStoreRoot = Config.string("PLATFORM_OBJECT_STORE_ROOT").pipe(Config.withDefault("./data/object-store"))

/**
 * The object store on an S3-compatible service instead of the folder:
 * `s3://bucket[/prefix][?endpoint=…&region=…&force_path_style=…]`, credentials from `AWS_*`
 * (docs/knowledge-bases.md "The object store", platform/S3ObjectStore.ts).
 */
export const ObjectStoreUrl = Config.option(Config.nonEmptyString("PLATFORM_OBJECT_STORE_URL"))

/** The largest file an upload reads, in bytes (default 16 MiB); a larger one is a failed artifact. */
export const ObjectMaxBytes = Config.integer("PLATFORM_OBJECT_MAX_BYTES").pipe(
  Config.validate({ message: "PLATFORM_OBJECT_MAX_BYTES must be at least 1", validation: (n) => n >= 1 }),
  Config.withDefault(16 * 1024 * 1024)
)

/**
 * The hosts application external endpoint nodes may call (docs/applications.md "External
 * endpoints"), comma-separated: `*` (any), `api.example.com`, `*.example.com`, each perhaps with
 * `:port`. None by default: a node's URL is a caller's, and the server's network is not theirs.
 */
export const ExternalEndpointHosts = Config.string("PLATFORM_EXTERNAL_ENDPOINT_HOSTS").pipe(
  Config.map((value) => value.split(",").map((host) => host.trim()).filter((host) => host !== "")),
  Config.withDefault([] as Array<string>)
)

/**
 * The largest file `POST /v5/files` and `POST /v4/beta/files` take, in bytes (default 25 MiB, the
 * platform's): these two routes have it instead of `PLATFORM_MAX_BODY_BYTES` (docs/files.md).
 */
export const FileMaxBytes = Config.integer("PLATFORM_FILE_MAX_BYTES").pipe(
  Config.validate({ message: "PLATFORM_FILE_MAX_BYTES must be at least 1", validation: (n) => n >= 1 }),
  Config.withDefault(25 * 1024 * 1024)
)

/**
 * How the standalone server writes its log (docs/operations.md): `json` (one JSON object a line),
 * `logfmt` or `pretty`; by default `pretty` on a terminal and `json` otherwise.
 */
export const LogFormat = Config.literal("json", "logfmt", "pretty")("PLATFORM_LOG_FORMAT").pipe(Config.option)

/** The least severe level written: `trace`, `debug`, `info` (default), `warning`, `error` or `none`. */
export const LogLevelName = Config.literal("trace", "debug", "info", "warning", "error", "none")("PLATFORM_LOG_LEVEL").pipe(
  Config.withDefault("info" as const)
)

/**
 * Whether the standalone server writes a line per request (docs/operations.md): `off` (default:
 * it costs a fifth of a GET's throughput, docs/benchmarks.md "Access log") or `on`.
 */
export const AccessLog = Config.literal("on", "off")("PLATFORM_ACCESS_LOG").pipe(Config.withDefault("off" as const))

/**
 * The nice value the standalone server gives, on Linux, the threads it has at start besides the
 * one that serves requests (docs/operations.md "Helper threads"), a SQLite file's checkpoint
 * thread ("Checkpoints") and an upload's built-in embeddings thread: 0 to 19, default 19; 0 leaves
 * them be.
 */
export const HelperThreadsNice = Config.integer("PLATFORM_HELPER_THREADS_NICE").pipe(
  Config.validate({ message: "PLATFORM_HELPER_THREADS_NICE must be 0 to 19", validation: (n) => n >= 0 && n <= 19 }),
  Config.withDefault(19)
)

/**
 * Whether the kit records its own work as v5 spans of the caller's account (docs/spans.md "The
 * kit's own traces"): `on` (default) or `off`.
 */
export const TraceRecording = Config.literal("on", "off")("PLATFORM_TRACE_RECORDING").pipe(Config.withDefault("on" as const))
