/**
 * Prepared statements kept by their SQL on the SQLite connection. Prisma's better-sqlite3
 * adapter prepares every query anew, binds that query's arguments to the new statement and
 * reads its columns: better-sqlite3 compiles the SQL each time, and the columns are read
 * back from SQLite each time. That was a sixth of the server's CPU reading a session. The
 * app sends a bounded number of distinct SQL texts (its query plans are kept by shape,
 * query-plans.server.ts), so each is compiled once, with its columns, and run with each
 * call's arguments.
 */
import Database from "better-sqlite3";

/** Statements kept at most, the least recently used going first: raw SQL carries its values in its text. */
export const MAX_STATEMENTS = 1000;

interface Kept {
  statement: Database.Statement;
  /** Only a statement that returns rows has columns; asking another throws. */
  columns: Database.ColumnDefinition[] | null;
}

/**
 * What the adapter asks of `prepare(sql)`: `.run()` (BEGIN), or `.bind(args)` and then
 * `.reader`, `.columns()`, `.run()` and `.raw().all()`. A bound copy is made per call: a
 * better-sqlite3 statement binds its arguments for good.
 */
function bound({ statement, columns }: Kept, args: unknown[] = []) {
  return {
    reader: statement.reader,
    columns: () => columns!,
    run: () => statement.run(args),
    raw: () => ({ all: () => statement.all(args) }),
  };
}

/**
 * Makes the adapter's connection `adapter.client` keep its statements. Fails at start-up,
 * not on a query, if the adapter no longer holds a better-sqlite3 connection there.
 */
export function reusePreparedStatements(adapter: object): void {
  const db = (adapter as { client?: unknown }).client;
  if (!(db instanceof Database)) throw new Error("The SQLite adapter's connection is not where it was.");
  const compile = db.prepare.bind(db);
  const kept = new Map<string, Kept>();
  /** The statement of `sql`, compiled now if it is not kept, and marked the most recently used. */
  const keep = (sql: string): Kept => {
    let entry = kept.get(sql);
    if (entry) {
      kept.delete(sql); // to the end of the order: the most recently used
    } else {
      const statement = compile(sql);
      // The adapter reads rows as arrays (raw), for good on a statement kept.
      if (statement.reader) statement.raw(true);
      entry = { statement, columns: statement.reader ? statement.columns() : null };
      if (kept.size >= MAX_STATEMENTS) kept.delete(kept.keys().next().value!);
    }
    kept.set(sql, entry);
    return entry;
  };
  const prepare = (sql: string) => {
    const entry = keep(sql);
    return { run: () => entry.statement.run(), bind: (args: unknown[]) => bound(entry, args) };
  };
  db.prepare = prepare as unknown as typeof db.prepare;
}
