import { assertEquals } from "../../../tests/helpers/assert.ts";
import { splitStatements } from "./migrator.ts";

Deno.test("splitStatements splits on top-level semicolons only", () => {
  const sql = `-- a comment; with a semicolon
CREATE TABLE a (x text DEFAULT 'a;b');
CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;

INSERT INTO a VALUES ('it''s; fine')`;
  assertEquals(splitStatements(sql), [
    "CREATE TABLE a (x text DEFAULT 'a;b')",
    "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql",
    "INSERT INTO a VALUES ('it''s; fine')",
  ]);
});
