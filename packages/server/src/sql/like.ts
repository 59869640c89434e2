/**
 * Case-insensitive substring matching that behaves the same on SQLite and PostgreSQL: the column
 * holds lowered text (lowered in JavaScript, so non-ASCII letters fold too), the pattern is the
 * lowered user text with `\`, `%` and `_` escaped, matched with `LIKE ? ESCAPE '\'`.
 */

/** The LIKE pattern matching any text that contains `text`: lowered, with `\`, `%` and `_` escaped. */
export const containsPattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The ESCAPE clause that goes with `containsPattern`. */
export const likeEscape = "ESCAPE '\\'"
