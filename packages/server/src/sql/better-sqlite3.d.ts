/**
 * The part of better-sqlite3's API the server (sql/sqliteClient.ts, sql/reads.ts) and the bench
 * call. The package ships no types and `@types/better-sqlite3` is not a dependency.
 */
declare module "better-sqlite3" {
  namespace Database {
    interface RunResult {
      readonly changes: number
      readonly lastInsertRowid: number | bigint
    }
    interface Statement<Row = unknown> {
      /** Whether the statement returns rows (a SELECT, a PRAGMA that answers, `… RETURNING`). */
      readonly reader: boolean
      /** Whether the statement writes nothing. */
      readonly readonly: boolean
      run(...params: ReadonlyArray<unknown>): RunResult
      get(...params: ReadonlyArray<unknown>): Row | undefined
      all(...params: ReadonlyArray<unknown>): Array<Row>
      pluck(toggle?: boolean): this
      raw(toggle?: boolean): this
    }
    interface Options {
      readonly readonly?: boolean
      readonly fileMustExist?: boolean
      /** Milliseconds to wait for another connection's lock (SQLite's busy timeout); default 5000. */
      readonly timeout?: number
    }
  }
  interface Database {
    /** Whether a transaction is open (false after SQLite rolled one back by itself). */
    readonly inTransaction: boolean
    prepare<Row = unknown>(sql: string): Database.Statement<Row>
    exec(sql: string): this
    pragma(source: string, options?: { readonly simple?: boolean }): unknown
    transaction<Args extends ReadonlyArray<unknown>, R>(fn: (...args: Args) => R): (...args: Args) => R
    close(): this
  }
  const Database: new(filename: string, options?: Database.Options) => Database
  export default Database
}
