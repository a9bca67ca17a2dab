/**
 * Reads the few files a recipe needs out of an untrusted zip, within fixed limits. The central
 * directory is read by hand (it says where each entry starts and how big it claims to be), then
 * each wanted entry is inflated by fflate in small slices while its real output is counted, so a
 * zip bomb or an entry whose declared size lies is cut at the cap, never held whole.
 */
import { Inflate } from "fflate";
import { RecipeError } from "./recipe_error.ts";

/** What a recipe zip may be: TRMNL's files are a few KiB each. */
export interface ZipLimits {
  packedBytes: number;
  unpackedBytes: number;
  entries: number;
}

/** One entry of the central directory. */
interface Entry {
  name: string;
  method: number;
  flags: number;
  packedSize: number;
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** Compressed bytes handed to the inflater at a time: its output per step stays about 1 MiB. */
const SLICE = 1024;
const decoder = new TextDecoder();

const MiB = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;

/** Refuses a name that could leave the archive's folder: `..`, absolute, drive, backslash. */
function checkName(name: string): void {
  if (
    name.includes("\\") || name.includes("\0") || name.startsWith("/") || /^[A-Za-z]:/.test(name) ||
    name.split("/").includes("..")
  ) {
    throw new RecipeError(`Zip entry "${name}" has a path outside the archive`);
  }
}

function findEnd(view: DataView): number {
  const lowest = Math.max(0, view.byteLength - 22 - 65_535);
  for (let at = view.byteLength - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  throw new RecipeError("The body is not a zip archive");
}

/** The central directory's entries, checked against the limits before anything is inflated. */
function entriesOf(bytes: Uint8Array, limits: ZipLimits): Entry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(view);
  const count = view.getUint16(end + 10, true);
  if (count > limits.entries) {
    throw new RecipeError(`The zip holds ${count} entries, over the ${limits.entries} allowed`);
  }
  let at = view.getUint32(end + 16, true);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL) {
      throw new RecipeError("The zip archive's directory is damaged");
    }
    const nameLength = view.getUint16(at + 28, true);
    const entry: Entry = {
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      packedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
      name: decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
    };
    checkName(entry.name);
    entries.push(entry);
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

/** The entry's compressed bytes, located through its local header. */
function packedData(bytes: Uint8Array, entry: Entry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL) {
    throw new RecipeError(`Zip entry "${entry.name}" is damaged`);
  }
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (start + entry.packedSize > bytes.length) {
    throw new RecipeError(`Zip entry "${entry.name}" is damaged`);
  }
  return bytes.subarray(start, start + entry.packedSize);
}

/** Inflates `packed`, refusing as soon as the output passes `budget` bytes. */
function inflate(entry: Entry, packed: Uint8Array, budget: number, cap: number): Uint8Array {
  if (entry.method === 0) {
    if (packed.length > budget) throw overCap(cap);
    return packed.slice();
  }
  if (entry.method !== 8) {
    throw new RecipeError(`Zip entry "${entry.name}" uses compression method ${entry.method}`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflater = new Inflate((chunk) => {
    total += chunk.length;
    if (total > budget) throw overCap(cap);
    chunks.push(chunk);
  });
  try {
    for (let at = 0; at < packed.length; at += SLICE) {
      inflater.push(packed.subarray(at, at + SLICE), at + SLICE >= packed.length);
    }
  } catch (error) {
    if (error instanceof RecipeError) throw error;
    throw new RecipeError(`Zip entry "${entry.name}" does not inflate`);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

function overCap(cap: number): RecipeError {
  return new RecipeError(`The zip unpacks to more than ${MiB(cap)}`);
}

/**
 * Every entry name of the zip, and the contents of those `wanted` picks (directories never).
 * Throws `RecipeError` for a body that is not a zip, too big, too many entries, a path leaving
 * the archive, encryption, or more than the unpacked limit in what is inflated.
 */
export function readZip(
  bytes: Uint8Array,
  limits: ZipLimits,
  wanted: (name: string) => boolean,
): { names: string[]; files: Map<string, Uint8Array> } {
  if (bytes.length > limits.packedBytes) {
    throw new RecipeError(`The zip is ${MiB(bytes.length)}, over ${MiB(limits.packedBytes)}`);
  }
  if (bytes.length < 22) throw new RecipeError("The body is not a zip archive");
  const entries = entriesOf(bytes, limits);
  const files = new Map<string, Uint8Array>();
  let left = limits.unpackedBytes;
  for (const entry of entries) {
    if (entry.name.endsWith("/") || !wanted(entry.name)) continue;
    if (entry.flags & 1) throw new RecipeError(`Zip entry "${entry.name}" is encrypted`);
    // The declared size is checked first (cheap), the real output while inflating (it may lie).
    if (entry.size > left) throw overCap(limits.unpackedBytes);
    const content = inflate(entry, packedData(bytes, entry), left, limits.unpackedBytes);
    left -= content.length;
    files.set(entry.name, content);
  }
  return { names: entries.map((entry) => entry.name), files };
}
