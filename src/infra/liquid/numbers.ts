/**
 * trmnl-liquid's number and word filters, as its fallbacks (no Rails helpers) behave: recipes
 * written against TRMNL's hosted service print the same figures here.
 */

/** `1234567.8` → `1,234,567.8`; anything that is not a plain decimal number is left as it is. */
export function numberWithDelimiter(number: unknown, delimiter = ",", separator = "."): string {
  const text = String(number ?? "");
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, integer, fraction] = match;
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, String(delimiter));
  return sign + grouped + (fraction === undefined ? "" : String(separator) + fraction);
}

/** `10420` → `$10,420.00`: the unit before, the fraction cut or padded to `precision` digits. */
export function numberToCurrency(
  number: unknown,
  unit = "$",
  delimiter = ",",
  separator = ".",
  precision = 2,
): string {
  const [whole, cents = ""] = numberWithDelimiter(number, delimiter, separator).split(
    String(separator),
  );
  const digits = Math.max(0, Math.trunc(Number(precision)) || 0);
  if (digits === 0) return `${unit}${whole}`;
  return `${unit}${whole}${separator}${cents.slice(0, digits).padEnd(digits, "0")}`;
}

/** `2` → `2nd`, `11` → `11th`. */
export function ordinal(day: number): string {
  if (day % 100 >= 11 && day % 100 <= 13) return `${day}th`;
  return `${day}${({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[day % 10] ?? "th"}`;
}

const IRREGULAR: Record<string, string> = {
  person: "people",
  child: "children",
  man: "men",
  woman: "women",
  mouse: "mice",
  goose: "geese",
  foot: "feet",
  tooth: "teeth",
  octopus: "octopi",
};

/** English plural of a noun: the common rules and a few irregular words (no Rails inflector). */
export function pluralOf(singular: string): string {
  const irregular = IRREGULAR[singular.toLowerCase()];
  if (irregular) return irregular;
  if (/[^aeiou]y$/i.test(singular)) return `${singular.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(singular)) return `${singular}es`;
  return `${singular}s`;
}

/** `"book" | pluralize: 2` → `2 books`; `plural:` names the plural form. */
export function pluralize(singular: unknown, count: unknown, plural?: string): string {
  const word = String(singular ?? "");
  const n = Number(count);
  return n === 1 ? `1 ${word}` : `${count} ${plural ?? pluralOf(word)}`;
}

/** Ruby's `to_i`: the leading integer of the text, 0 when there is none. */
export function toInteger(value: unknown): number {
  const match = /^\s*[+-]?\d+/.exec(String(value ?? ""));
  return match ? Number.parseInt(match[0], 10) : 0;
}
