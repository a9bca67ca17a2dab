/** A recipe zip that cannot be imported; its message says why (the route answers 400). */
export class RecipeError extends Error {
  override name = "RecipeError";
}
