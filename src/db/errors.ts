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
