/**
 * `Intl.DateTimeFormat`s by time zone, each built once: building one costs far more than using it
 * (a playlist's advance of many devices asks for the same zone each time). An unknown zone's
 * construction throws and nothing is kept; a bound keeps a caller passing odd names from growing it.
 */
const formats = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATS = 1000;

/**
 * The formatter of `options` in `timeZone`; `kind` names the options (callers keep one set of
 * options per kind), so a look-up costs no serialisation of them.
 */
export function zoneFormat(
  kind: string,
  timeZone: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${kind}|${timeZone}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { ...options, timeZone });
    if (formats.size >= MAX_FORMATS) formats.clear();
    formats.set(key, format);
  }
  return format;
}
