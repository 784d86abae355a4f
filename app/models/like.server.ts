import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { containsPattern } from "~/domain/validation";

/**
 * `column LIKE '%text%'` with the text taken literally: `%`, `_` and `\` in a search match themselves.
 * The list query keeps the escaped pattern within D1's 50-byte limit (searchText in ~/domain/validation).
 */
export function contains(column: SQLWrapper, text: string): SQL {
  return sql`${column} like ${containsPattern(text)} escape '\\'`;
}
