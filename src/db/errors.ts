/** Recognises PostgreSQL errors by SQLSTATE; postgres.js and PGlite both expose `code`. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as {
    code?: string;
    constraint_name?: string;
    constraint?: string;
    message?: string;
  };
  if (e?.code !== "23505") return false;
  if (!constraint) return true;
  const name = e.constraint_name ?? e.constraint ?? "";
  return name === constraint || (e.message ?? "").includes(constraint);
}

/**
 * Text PostgreSQL cannot store: a NUL character (`\u0000`) in a text or jsonb value
 * (SQLSTATE 22021 character_not_in_repertoire, 22P05 untranslatable_character). It comes from
 * client input, so it is a 400, not a 500.
 */
export function isUnstorableText(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === "22021" || code === "22P05";
}
