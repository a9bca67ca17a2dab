/**
 * The files domain's face: it owns the `files` rows and their object keys (`keys.ts`), which
 * other domains reach through its repository and uploads; it shows no route of its own.
 */
import { defineDomain } from "../../face.ts";
import { userPrefixes } from "./keys.ts";
// Its tables (they add themselves to the database's type, src/schema.ts).
export type { FileTables } from "./tables.ts";

export const files = defineDomain({ name: "files", objectKeys: { userPrefixes } });
