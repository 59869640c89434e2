/**
 * The part of better-sqlite3's API the server (sql/reads.ts) and the bench call themselves; the
 * rest goes through `@effect/sql-sqlite-node`. The package ships no types and `@types/better-sqlite3`
 * is not a dependency.
 */
declare module "better-sqlite3" {
  namespace Database {
    interface RunResult {
      readonly changes: number
      readonly lastInsertRowid: number | bigint
    }
    interface Statement<Row = unknown> {
      run(...params: ReadonlyArray<unknown>): RunResult
      get(...params: ReadonlyArray<unknown>): Row | undefined
      all(...params: ReadonlyArray<unknown>): Array<Row>
      pluck(toggle?: boolean): this
    }
    interface Options {
      readonly readonly?: boolean
      readonly fileMustExist?: boolean
    }
  }
  interface Database {
    prepare<Row = unknown>(sql: string): Database.Statement<Row>
    exec(sql: string): this
    pragma(source: string, options?: { readonly simple?: boolean }): unknown
    transaction<Args extends ReadonlyArray<unknown>, R>(fn: (...args: Args) => R): (...args: Args) => R
    close(): this
  }
  const Database: new(filename: string, options?: Database.Options) => Database
  export default Database
}
