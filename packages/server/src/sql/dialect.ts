/**
 * Every difference between the SQL the server speaks to SQLite and to PostgreSQL, in one place.
 * Migrations name column types through `columnTypes`; the few statements that need a dialect's
 * own clause take it from here; the PostgreSQL client reads values back through `pgTypeParsers`
 * so that every repository sees the same JavaScript values on both databases (docs/postgresql.md).
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type * as Pg from "pg"

/** The column types of the migrations. */
export interface ColumnTypes {
  /**
   * Text that compares and sorts byte-wise. SQLite's TEXT does (BINARY collation); on
   * PostgreSQL the column gets the `"C"` collation, whatever the database's locale, so ORDER BY,
   * keyset comparisons and their indexes give the order SQLite gives.
   */
  readonly text: string
  /** An instant, written and read as an ISO-8601 UTC string (`2024-01-02T03:04:05.678Z`). */
  readonly timestamp: string
  /** A JSON document, read back as the exact text written (key order and spacing kept). */
  readonly json: string
  readonly integer: string
  /** Integers beyond 32 bits (epoch milliseconds); read as JavaScript numbers. */
  readonly bigint: string
  /** A primary key the database numbers in insertion order (SQLite's rowid; a `bigserial` on PostgreSQL). */
  readonly serialKey: string
  /** Bytes, written as a `Buffer` and read back as one. */
  readonly bytes: string
}

export const sqliteColumnTypes: ColumnTypes = {
  text: "TEXT",
  timestamp: "TEXT",
  json: "TEXT",
  integer: "INTEGER",
  bigint: "BIGINT",
  serialKey: "INTEGER PRIMARY KEY",
  bytes: "BLOB"
}

/**
 * `doc` is `json`, not `jsonb`: jsonb re-orders object keys and drops spacing, so free-form
 * objects (metadata, configurations) would not come back byte for byte as SQLite returns them.
 */
export const pgColumnTypes: ColumnTypes = {
  text: "TEXT COLLATE \"C\"",
  timestamp: "TIMESTAMPTZ",
  json: "JSON",
  integer: "INTEGER",
  bigint: "BIGINT",
  serialKey: "BIGSERIAL PRIMARY KEY",
  bytes: "BYTEA"
}

/** The column types of the database at hand. */
export const columnTypes: Effect.Effect<ColumnTypes, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) => sql.onDialectOrElse({ pg: () => pgColumnTypes, orElse: () => sqliteColumnTypes })
)

/** The columns of `table` (of the current schema, on PostgreSQL), with whether each is NOT NULL. */
export const tableColumns = (
  table: string
): Effect.Effect<ReadonlyArray<{ readonly name: string; readonly notNull: boolean }>, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql.onDialectOrElse({
        pg: () =>
          sql<{ name: string; notnull: unknown }>`SELECT column_name AS name, is_nullable = 'NO' AS notnull
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`,
        orElse: () => sql<{ name: string; notnull: unknown }>`SELECT name, "notnull" FROM pragma_table_info(${table})`
      }),
      (rows) => rows.map((row) => ({ name: row.name, notNull: row.notnull === true || Number(row.notnull) === 1 }))
    ))

/** Whether `table` has a column named `column`. */
export const hasColumn = (table: string, column: string): Effect.Effect<boolean, SqlError, SqlClient.SqlClient> =>
  Effect.map(tableColumns(table), (columns) => columns.some((found) => found.name === column))

/**
 * The row-lock clause of a read that a transaction will write back: `FOR UPDATE` on PostgreSQL,
 * so concurrent read-modify-write transactions of one row run one after the other as they do on
 * SQLite (one writer, one transaction at a time); nothing on SQLite.
 */
export const forUpdate = (sql: SqlClient.SqlClient): Statement.Fragment =>
  sql.literal(sql.onDialectOrElse({ pg: () => "FOR UPDATE", orElse: () => "" }))

/**
 * A lock named `name`, held by the calling transaction until it ends: across every instance on
 * the database, one transaction at a time gets past it and the others wait their turn. For
 * one-off steps of a start (the first-start bootstrap) that must not run twice at once.
 * - PostgreSQL: a transaction-scoped advisory lock on `name` and the current schema
 *   (`pg_advisory_xact_lock`), so deployments in other schemas of the database do not wait.
 * - SQLite: the database's write lock, taken by a write that changes nothing (one writer across
 *   every process on the file; a waiter is bounded by the busy timeout); `name` does not matter.
 *   Taking it before any read matters: a transaction that read first cannot upgrade to a write
 *   once another process has written. `effect_sql_migrations` is there on every migrated database.
 * Run it first inside `sql.withTransaction`.
 */
export const transactionLock = (sql: SqlClient.SqlClient, name: string): Effect.Effect<void, SqlError> =>
  sql.onDialectOrElse({
    pg: () => sql`SELECT pg_advisory_xact_lock(hashtext(${`platform-kit ${name} `} || current_schema()))`,
    orElse: () => sql`UPDATE effect_sql_migrations SET migration_id = migration_id WHERE 0 = 1`
  }).pipe(Effect.asVoid)

/**
 * Takes `tables` for the calling transaction alone, before it empties them (the control plane's
 * reset): on PostgreSQL `LOCK TABLE … IN ACCESS EXCLUSIVE MODE`, all in one statement, so that
 * the engine's steps (another pool) wait instead of interleaving row by row; on SQLite nothing
 * (the database's write lock is the transaction's from its first write). A deadlock with a
 * transaction that held one of them already is still possible: `isDeadlock` tells it, to retry.
 */
export const lockTables = (sql: SqlClient.SqlClient, tables: ReadonlyArray<string>): Effect.Effect<void, SqlError> =>
  sql.onDialectOrElse({
    pg: (): Effect.Effect<unknown, SqlError> =>
      tables.length === 0
        ? Effect.void
        : sql.unsafe(`LOCK TABLE ${tables.map((table) => `"${table.replaceAll('"', '""')}"`).join(", ")} IN ACCESS EXCLUSIVE MODE`),
    orElse: () => Effect.void
  }).pipe(Effect.asVoid)

/** Whether `error` is PostgreSQL's deadlock (SQLSTATE 40P01): the transaction was rolled back and may be run again. */
export const isDeadlock = (error: SqlError): boolean =>
  typeof error.cause === "object" && error.cause !== null && (error.cause as { code?: unknown }).code === "40P01"

/**
 * Tables that migrations fill, describing the schema rather than holding data, and the control
 * plane's shared controls (not an account's: a reset keeps them).
 */
const metadataTables = new Set(["effect_sql_migrations", "counted_document_tables", "platform_controls"])

/**
 * The tables that hold data (not the migrations' `effect_sql_migrations` and
 * `counted_document_tables`, nor the workflow
 * engine's `cluster_*`), each before the tables it references: the order to empty them in with
 * foreign keys enforced. What the control plane's reset empties.
 */
export const dataTables: Effect.Effect<ReadonlyArray<string>, SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = (yield* sql.onDialectOrElse({
    pg: () =>
      sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    // plain tables only: a full-text index's virtual table and its shadow tables follow their content table
    orElse: () =>
      sql<{ name: string }>`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'`
  })).map((row) => row.name).filter((name) => !metadataTables.has(name) && !name.startsWith("cluster_")).sort()
  const references = yield* sql.onDialectOrElse({
    pg: () =>
      sql<{ child: string; parent: string }>`SELECT tc.table_name AS child, ccu.table_name AS parent
        FROM information_schema.table_constraints tc
        JOIN information_schema.constraint_column_usage ccu
          ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
        WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`,
    orElse: () =>
      sql<{ child: string; parent: string }>`SELECT m.name AS child, f."table" AS parent
        FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`
  })
  // children first: a table goes once every table referencing it has gone
  const ordered: Array<string> = []
  const left = new Set(tables)
  while (left.size > 0) {
    const next = [...left].filter((table) =>
      !references.some((ref) => ref.parent === table && ref.child !== table && left.has(ref.child))
    )
    const take = next.length > 0 ? next : [...left]
    for (const table of take) left.delete(table)
    ordered.push(...take)
  }
  return ordered
})

const OID = {
  int8: 20,
  numeric: 1700,
  json: 114,
  timestamptz: 1184
} as const

/**
 * How the PostgreSQL client turns column values into JavaScript, so repositories read what
 * SQLite gives them:
 * - `bigint` (COUNT(*), SUM, epoch milliseconds) and `numeric` (AVG) as numbers, not strings
 *   (a `bigint` past 2^53 − 1 as its text: it has no exact number);
 * - `json` as its text (the repositories decode documents with `Schema.parseJson`);
 * - `timestamptz` as the ISO-8601 UTC string the server wrote.
 *
 * `types` is `pg`'s own parsers (`Pg.types`), passed in: the `pg` package is loaded only when the
 * server runs on PostgreSQL (sql/postgres.ts), not at every start.
 */
export const pgTypeParsers = (types: typeof Pg.types): Pg.CustomTypesConfig => ({
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format === undefined || format === "text") {
      switch (oid) {
        case OID.int8:
          // a number when it is one exactly; a larger one (the workflow engine's 64-bit ids in its
          // `cluster_*` tables) stays the decimal text `pg` gives by default, which the engine reads
          return (value: string) => {
            const n = Number(value)
            return Number.isSafeInteger(n) ? n : value
          }
        case OID.numeric:
          return (value: string) => Number(value)
        case OID.json:
          return (value: string) => value
        case OID.timestamptz: {
          const parse = types.getTypeParser(OID.timestamptz, "text") as (value: string) => Date
          return (value: string) => parse(value).toISOString()
        }
      }
    }
    return types.getTypeParser(oid, format as "text")
  }) as Pg.CustomTypesConfig["getTypeParser"]
})

/**
 * PostgreSQL text cannot hold U+0000, which JSON strings (and so request bodies and query
 * strings) may. Documents are unaffected (`JSON.stringify` escapes it as `\u0000`); a string
 * parameter (an indexed column's value, a filter) gets U+0001 in its place, so every statement
 * runs instead of failing. Only ordering and equality among strings differing by U+0000 versus
 * U+0001 can tell, and only on PostgreSQL.
 */
const withoutNul = (value: unknown): unknown =>
  typeof value === "string" && value.includes("\u0000") ? value.replaceAll("\u0000", "\u0001") : value

/** Applies `withoutNul` to every parameter a pooled connection sends (the pool's `connect` hook). */
export const pgOnConnect = (client: Pg.PoolClient): void => {
  const query = client.query as (...args: Array<any>) => any
  client.query = function(this: Pg.PoolClient, config: any, values?: any, callback?: any) {
    if (Array.isArray(values)) {
      values = values.map(withoutNul)
    } else if (config !== null && typeof config === "object" && Array.isArray(config.values)) {
      config.values = config.values.map(withoutNul)
    }
    return query.call(this, config, values, callback)
  } as typeof client.query
}

/**
 * The triggers that keep `document_counts` (sql/documentCounts.ts) in step with the rows of
 * `table`, in the statement that inserts, deletes or moves a row: `total` counts the rows of
 * each account, `archived` those with `archived_at` set (when `archived`; else it stays 0). A
 * row changes `archived` when `archived_at` goes from NULL to a time or back, and moves between
 * accounts if `account_id` changes. The statements the triggers run are the same on both
 * dialects; only the wrapper differs: a trigger body on SQLite, one PL/pgSQL function for every
 * table on PostgreSQL. There the upsert takes the counter row's lock until the transaction ends,
 * so concurrent writers of one account's table count one after the other and never lose one.
 */
export const countingTriggers = (
  sql: SqlClient.SqlClient,
  table: string,
  archived: boolean
): ReadonlyArray<string> => {
  const flag = (row: "NEW" | "OLD") => (archived ? `CASE WHEN ${row}.archived_at IS NULL THEN 0 ELSE 1 END` : "0")
  const moved = archived
    ? "OLD.account_id <> NEW.account_id OR (OLD.archived_at IS NULL) <> (NEW.archived_at IS NULL)"
    : "OLD.account_id <> NEW.account_id"
  const watched = archived ? "account_id, archived_at" : "account_id"
  return sql.onDialectOrElse({
    pg: () => [
      `CREATE OR REPLACE FUNCTION document_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_archived integer := 0;
  new_archived integer := 0;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF TG_ARGV[0] = 'archived' THEN
      old_archived := CASE WHEN OLD.archived_at IS NULL THEN 0 ELSE 1 END;
    END IF;
    UPDATE document_counts SET total = total - 1, archived = archived - old_archived
      WHERE table_name = TG_TABLE_NAME AND account_id = OLD.account_id;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF TG_ARGV[0] = 'archived' THEN
      new_archived := CASE WHEN NEW.archived_at IS NULL THEN 0 ELSE 1 END;
    END IF;
    INSERT INTO document_counts (table_name, account_id, total, archived)
      VALUES (TG_TABLE_NAME, NEW.account_id, 1, new_archived)
      ON CONFLICT (table_name, account_id) DO UPDATE
      SET total = document_counts.total + 1, archived = document_counts.archived + EXCLUDED.archived;
  END IF;
  RETURN NULL;
END
$$`,
      `CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION document_counts_track('${
        archived ? "archived" : "plain"
      }')`,
      `CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION document_counts_track('${
        archived ? "archived" : "plain"
      }')`,
      `CREATE TRIGGER ${table}_count_update AFTER UPDATE OF ${watched} ON ${table} FOR EACH ROW WHEN (${moved}) EXECUTE FUNCTION document_counts_track('${
        archived ? "archived" : "plain"
      }')`
    ],
    orElse: () => {
      const remove = `UPDATE document_counts SET total = total - 1, archived = archived - ${flag("OLD")}
    WHERE table_name = '${table}' AND account_id = OLD.account_id;`
      const add = `INSERT INTO document_counts (table_name, account_id, total, archived)
    VALUES ('${table}', NEW.account_id, 1, ${flag("NEW")})
    ON CONFLICT (table_name, account_id) DO UPDATE SET total = total + 1, archived = archived + excluded.archived;`
      return [
        `CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} BEGIN\n  ${add}\nEND`,
        `CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} BEGIN\n  ${remove}\nEND`,
        `CREATE TRIGGER ${table}_count_update AFTER UPDATE OF ${watched} ON ${table} WHEN ${moved} BEGIN\n  ${remove}\n  ${add}\nEND`
      ]
    }
  })
}

// ---------------------------------------------------------------------------------------------
// Full-text search and JSON fields

/**
 * How much of a text PostgreSQL's full-text index holds: a `tsvector` is at most 1 MB, which a
 * text of a few hundred thousand distinct words passes; the words past this many characters are
 * not searchable by word there (SQLite's FTS5 has no such bound).
 */
const pgIndexedCharacters = 100_000

/** The SQL of `partitionToken` of column `column`: what the FTS5 index holds of a partition (a UUID's letters and digits). */
const fullTextPartition = (column: string) => `lower(replace(${column}, '-', ''))`

/**
 * A full-text index of `table`'s `textColumn`, for `fullTextSearch`, partitioned by
 * `partitionColumn` (a knowledge base's chunks are searched among that base's only). `table` has a
 * `serialKey` column `key`.
 * - SQLite: a contentless FTS5 table `<table>_fts` (`unicode61` tokens, diacritics folded; rows
 *   deleted by rowid) with two columns, the text and the partition as one token
 *   (`partitionToken`), so a search of one partition intersects its postings inside the index
 *   instead of ranking every partition's matches; kept in step by triggers on delete and update of
 *   the text, and on insert until migration 0036 dropped that one: new rows are indexed by
 *   `indexFullText`, one statement for a whole write. (FTS5 writes its pending terms out at every
 *   statement inside a trigger: a segment per row, which cost three times the row itself.)
 * - PostgreSQL: a generated `tsvector` column `<textColumn>_tsv` (the `simple` configuration: no
 *   stemming, no stop words, as FTS5's tokenizer) with a GIN index; the partition is a condition.
 */
export const createFullTextIndex = (
  table: string,
  key: string,
  textColumn: string,
  partitionColumn: string
): Effect.Effect<void, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      pg: () =>
        Effect.zipRight(
          sql.unsafe(
            `ALTER TABLE ${table} ADD COLUMN ${textColumn}_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', left(${textColumn}, ${pgIndexedCharacters}))) STORED`
          ),
          sql.unsafe(`CREATE INDEX ${table}_${textColumn}_tsv ON ${table} USING GIN (${textColumn}_tsv)`)
        ).pipe(Effect.asVoid),
      orElse: () => {
        const fts = `${table}_fts`
        return Effect.all([
          sql.unsafe(
            `CREATE VIRTUAL TABLE ${fts} USING fts5(${textColumn}, part, content='', contentless_delete=1, detail=column, tokenize='unicode61 remove_diacritics 2')`
          ),
          // dropped by migration 0036 (`dropFullTextInsertTrigger`): new rows are indexed by `indexFullText`
          sql.unsafe(
            `CREATE TRIGGER ${table}_fts_insert AFTER INSERT ON ${table} BEGIN INSERT INTO ${fts}(rowid, ${textColumn}, part) VALUES (new.${key}, new.${textColumn}, ${
              fullTextPartition(`new.${partitionColumn}`)
            }); END`
          ),
          sql.unsafe(`CREATE TRIGGER ${table}_fts_delete AFTER DELETE ON ${table} BEGIN DELETE FROM ${fts} WHERE rowid = old.${key}; END`),
          sql.unsafe(
            `CREATE TRIGGER ${table}_fts_update AFTER UPDATE OF ${textColumn} ON ${table} BEGIN DELETE FROM ${fts} WHERE rowid = old.${key}; INSERT INTO ${fts}(rowid, ${textColumn}, part) VALUES (new.${key}, new.${textColumn}, ${
              fullTextPartition(`new.${partitionColumn}`)
            }); END`
          )
        ], { discard: true })
      }
    }))

/**
 * Drops the trigger that indexed each new row of `table` (what `createFullTextIndex` made before
 * `indexFullText`; SQLite only, nothing on PostgreSQL), for the databases made then.
 */
export const dropFullTextInsertTrigger = (table: string): Effect.Effect<void, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      pg: () => Effect.void,
      orElse: () => Effect.asVoid(sql.unsafe(`DROP TRIGGER IF EXISTS ${table}_fts_insert`))
    }))

/**
 * Indexes the rows of `table` whose `key` is past `afterKey` (those a write just inserted: read the
 * greatest key after its deletes, before its inserts) in its full-text index, in one statement,
 * inside the writer's transaction. SQLite: into the FTS5 table (one segment for the lot);
 * PostgreSQL: nothing to do (the generated column is the index).
 */
export const indexFullText = (
  sql: SqlClient.SqlClient,
  target: FullTextIndex,
  afterKey: number
): Effect.Effect<void, SqlError> => {
  const { key, partitionColumn, table, textColumn } = target
  return sql.onDialectOrElse({
    pg: () => Effect.void,
    orElse: () =>
      sql.unsafe(
        `INSERT INTO ${table}_fts(rowid, ${textColumn}, part) SELECT ${key}, ${textColumn}, ${fullTextPartition(partitionColumn)} FROM ${table} WHERE ${key} > ?`,
        [afterKey]
      ).pipe(Effect.asVoid)
  })
}

/** A partition's value as the FTS5 index holds it: one token (its letters and digits, lower-cased). */
const partitionToken = (value: string) => value.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")

/** A table's full-text index (`createFullTextIndex`): the table, its `serialKey`, its text and partition columns. */
export interface FullTextIndex {
  readonly table: string
  readonly key: string
  readonly textColumn: string
  readonly partitionColumn: string
}

/** What `fullTextSearch` and `fullTextHolds` search: a table's full-text index, within one partition. */
export interface FullTextTarget extends FullTextIndex {
  readonly partition: string
  /** Further conditions on the table's rows, AND-ed. */
  readonly where: ReadonlyArray<Statement.Fragment>
}

/** The FTS5 MATCH of `terms` (any of them) within `partition`: every value quoted, so FTS5's query syntax never reads the user's text. */
const ftsMatch = (target: FullTextTarget, terms: ReadonlyArray<string>) =>
  `part : "${partitionToken(target.partition)}" AND ${target.textColumn} : (${terms.map((term) => `"${term}"`).join(" OR ")})`

/**
 * The rows of the target holding any of `terms` (words: letters and digits only, at least one),
 * best first, at most `limit`: their `key` and a `rank` where higher is better (the statement:
 * the caller runs it, on the read connection). SQLite ranks by BM25 (FTS5's
 * `bm25`, negated; its statistics are the whole index's, every partition's); PostgreSQL by cover
 * density (`ts_rank_cd`, which weighs how close together the terms stand; PostgreSQL keeps no
 * corpus statistics for an IDF).
 */
export const fullTextSearch = (
  sql: SqlClient.SqlClient,
  target: FullTextTarget & { readonly terms: ReadonlyArray<string>; readonly limit: number }
): Statement.Statement<{ readonly key: number; readonly rank: number }> => {
  const { key, limit, partition, partitionColumn, table, terms, textColumn, where } = target
  return sql.onDialectOrElse({
    pg: () =>
      sql<{ key: number; rank: number }>`SELECT ${sql(key)} AS key, ts_rank_cd(${sql(`${textColumn}_tsv`)}, q) AS rank
        FROM ${sql(table)}, to_tsquery('simple', ${terms.join(" | ")}) q
        WHERE ${sql.and([sql`${sql(`${textColumn}_tsv`)} @@ q`, sql`${sql(partitionColumn)} = ${partition}`, ...where])}
        ORDER BY rank DESC, ${sql(key)} LIMIT ${limit}`,
    orElse: () => {
      const fts = sql(`${table}_fts`)
      return sql<{ key: number; rank: number }>`SELECT t.${sql(key)} AS key, -bm25(${fts}, 1.0, 0.0) AS rank
        FROM ${fts} JOIN ${sql(table)} t ON t.${sql(key)} = ${fts}.rowid
        WHERE ${sql.and([sql`${fts} MATCH ${ftsMatch(target, terms)}`, sql`t.${sql(partitionColumn)} = ${partition}`, ...where])}
        ORDER BY bm25(${fts}, 1.0, 0.0), t.${sql(key)} LIMIT ${limit}`
    }
  })
}

/**
 * A row when at least `count` rows of the target hold `term` (a word of letters and digits): one
 * look into the full-text index that stops at the `count`-th match, so a common word costs about
 * what a rare one does (the statement: the caller runs it, on the read connection).
 */
export const fullTextHolds = (
  sql: SqlClient.SqlClient,
  target: FullTextTarget & { readonly term: string; readonly count: number }
): Statement.Statement<{ readonly found: number }> => {
  const { count, partition, partitionColumn, table, term, textColumn, where } = target
  return sql.onDialectOrElse({
    pg: () =>
      sql<{ found: number }>`SELECT 1 AS found FROM ${sql(table)} WHERE ${
        sql.and([sql`${sql(`${textColumn}_tsv`)} @@ to_tsquery('simple', ${term})`, sql`${sql(partitionColumn)} = ${partition}`, ...where])
      } LIMIT 1 OFFSET ${count - 1}`,
    orElse: () => {
      const fts = sql(`${table}_fts`)
      // without further conditions, the index alone answers
      return where.length === 0
        ? sql<{ found: number }>`SELECT 1 AS found FROM ${fts} WHERE ${fts} MATCH ${ftsMatch(target, [term])} LIMIT 1 OFFSET ${count - 1}`
        : sql<{ found: number }>`SELECT 1 AS found FROM ${fts} JOIN ${sql(table)} t ON t.${sql(target.key)} = ${fts}.rowid
          WHERE ${sql.and([sql`${fts} MATCH ${ftsMatch(target, [term])}`, ...where])} LIMIT 1 OFFSET ${count - 1}`
    }
  })
}

/**
 * The JSON text of field `field` of JSON column `column` (`"text"`, `5`, `true`; NULL when absent),
 * as the document was written: compared with `JSON.stringify` of a scalar it tells equality on both
 * databases.
 */
export const jsonFieldJson = (sql: SqlClient.SqlClient, column: string, field: string): Statement.Fragment =>
  sql.onDialectOrElse({
    pg: () => sql`(${sql(column)} -> ${field})::text`,
    orElse: () => sql`(${sql(column)} -> ${jsonPath(field)})`
  })

/** The text of field `field` of JSON column `column` when it is a string; NULL for any other value, or none. */
export const jsonFieldText = (sql: SqlClient.SqlClient, column: string, field: string): Statement.Fragment =>
  sql.onDialectOrElse({
    pg: () => sql`(CASE WHEN json_typeof(${sql(column)} -> ${field}) = 'string' THEN ${sql(column)} ->> ${field} END)`,
    orElse: () => sql`(CASE WHEN json_type(${sql(column)}, ${jsonPath(field)}) = 'text' THEN ${sql(column)} ->> ${jsonPath(field)} END)`
  })

/** SQLite's JSON path of a top-level field (`$."name"`); field names are letters, digits, `_`, `-` and `.` only (the caller's Schema says so). */
const jsonPath = (field: string) => `$."${field}"`

/**
 * Whether `expression` matches `pattern`, where `*` is any run of characters and `?` any one
 * (every other character itself), case-insensitively when told: SQLite's GLOB (case-sensitive
 * by nature; both sides lowered otherwise: SQLite's `lower` folds ASCII letters only, and so does
 * the pattern's), PostgreSQL's LIKE / ILIKE (every letter folded) with the pattern translated.
 */
export const wildcardMatch = (
  sql: SqlClient.SqlClient,
  expression: Statement.Fragment,
  pattern: string,
  caseInsensitive: boolean
): Statement.Fragment =>
  sql.onDialectOrElse({
    pg: () => {
      const like = [...pattern].map((c) => (c === "*" ? "%" : c === "?" ? "_" : /[\\%_]/.test(c) ? `\\${c}` : c)).join("")
      return caseInsensitive ? sql`${expression} ILIKE ${like} ESCAPE '\\'` : sql`${expression} LIKE ${like} ESCAPE '\\'`
    },
    orElse: () => {
      // GLOB's own specials besides * and ?: a bracket is written as a one-character class
      const folded = caseInsensitive ? pattern.replace(/[A-Z]/g, (c) => c.toLowerCase()) : pattern
      const glob = [...folded].map((c) => (c === "[" ? "[[]" : c === "]" ? "[]]" : c)).join("")
      return caseInsensitive ? sql`lower(${expression}) GLOB ${glob}` : sql`${expression} GLOB ${glob}`
    }
  })
