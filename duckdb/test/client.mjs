// The extension from DuckDB's Node client (@duckdb/node-api): LOAD the file given as the
// first argument, run each SQL query of the JSON array given as the second, and print one
// JSON line per query: {"rows": [...]} or {"error": "..."}. Driven by
// duckdb/test/test_extension.py, which compares the rows with the library's.
import { DuckDBInstance } from '@duckdb/node-api';

const [extension, queries] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
const connection = await instance.connect();
await connection.run(`LOAD '${extension.replaceAll("'", "''")}'`);
for (const sql of JSON.parse(queries)) {
  try {
    const reader = await connection.runAndReadAll(sql);
    console.log(JSON.stringify({ rows: reader.getRowsJson() }));
  } catch (error) {
    console.log(JSON.stringify({ error: String(error.message) }));
  }
}
