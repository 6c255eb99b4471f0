import { ByteLru } from '../memory/byte-lru';
import { KeyedEntry } from '../memory/keyed-entry';
import { PREPARED_JSON_CACHE } from '../memory/cache-limits';
import { PlainText } from './plain-text';

/**
 * A value of response data already serialized: the HTTP layer writes its bytes where the value goes (see
 * {@link toJsonBytes}). Serialized any other way it still gives the same JSON, through `toJSON`.
 */
export class JsonText {
  private encoded?: Buffer;
  /** The memo entry keeping this text, told the size of its bytes once they are encoded (see {@link ItemMemo}). */
  heldBy?: { encoded(bytes: number): void };

  constructor(
    readonly text: string,
    /** The item's `_links` as they are in the text, for `_embed` to follow without parsing it. */
    readonly links?: Readonly<Record<string, unknown>>,
  ) {}

  /** JSON text from its UTF-8 bytes (kept as they are: {@link bytes}). */
  static fromBytes(bytes: Buffer): JsonText {
    const text = new JsonText(bytes.toString('utf8'));
    text.encoded = bytes;
    return text;
  }

  /** The text in UTF-8, encoded once for all the responses it goes into. */
  get bytes(): Buffer {
    if (this.encoded) return this.encoded;
    const holder = this.heldBy;
    if (!holder) return (this.encoded = Buffer.from(this.text));
    // Kept for later responses: in a buffer of its own, as a slice of Node's shared 8 KiB pool would keep the whole
    // slab alive for as long as the memo keeps the text.
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(this.text));
    bytes.write(this.text);
    this.encoded = bytes;
    holder.encoded(bytes.length);
    return bytes;
  }

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * The JSON text of a value holding {@link JsonText} values in arrays and plain objects (`JSON.stringify` for
 * anything else; `undefined` where it gives none): what `_embed` puts under an item's `_embedded`, lists of
 * serialized items among error bodies.
 */
export function jsonOf(value: unknown): string | undefined {
  if (value instanceof JsonText) return value.text;
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + (jsonOf(value[i]) ?? 'null');
    return `${text}]`;
  }
  if (isPlainObject(value)) {
    let text = '{';
    for (const key in value) {
      const json = jsonOf(value[key]);
      if (json !== undefined) text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${json}`;
    }
    return `${text}}`;
  }
  return JSON.stringify(value);
}

/** An object literal's kind of object (no class, no `toJSON`): its members are what JSON.stringify writes. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * An item given as JSON text with members added at its end (`_embedded`): their values written by {@link jsonOf}.
 */
export function withMembers(item: JsonText, members: Record<string, unknown>): JsonText {
  let text = item.text.slice(0, -1);
  let first = text.trimEnd() === '{';
  for (const [name, value] of Object.entries(members)) {
    const json = jsonOf(value);
    if (json === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(name)}:${json}`;
    first = false;
  }
  return new JsonText(`${text}}`, item.links);
}

/**
 * The JSON of response data in UTF-8: `JSON.stringify`, with the bytes of {@link JsonText} values (the value
 * itself, or items of a top-level array) copied in as they are; a {@link PlainText} value is its text.
 */
export function toJsonBytes(data: unknown): Buffer {
  if (data instanceof JsonText || data instanceof PlainText) return data.bytes;
  if (!Array.isArray(data) || !data.some((item) => item instanceof JsonText))
    return Buffer.from(JSON.stringify(data ?? null));
  const chunks: Buffer[] = [];
  let text = '[';
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    if (i > 0) text += ',';
    if (item instanceof JsonText) {
      chunks.push(Buffer.from(text), item.bytes);
      text = '';
    } else {
      text += JSON.stringify(item) ?? 'null';
    }
  }
  chunks.push(Buffer.from(`${text}]`));
  return Buffer.concat(chunks);
}

/**
 * Approximate bytes of an {@link ItemMemo} entry besides its strings: the entry, its inputs array and the item's
 * `_links` objects.
 */
export const MEMO_ENTRY_BYTES = 2048;

/** What an {@link ItemMemo} keeps of an item: the inputs it was made from, and its text. */
interface MemoValue {
  inputs: readonly unknown[];
  text: JsonText;
}

/** One item kept by an {@link ItemMemo}. */
class MemoEntry extends KeyedEntry<ItemMemo, MemoValue> {
  /** The text's UTF-8 bytes were encoded: one byte a character was counted for them already (UTF-8 takes no fewer). */
  encoded(bytes: number): void {
    this.owner.pool.resize(this, this.size + bytes - this.value.text.text.length);
  }
}

/** The budget {@link ItemMemo}s share: the least recently used item of any of them goes first. */
export type ItemMemoPool = ByteLru<MemoEntry>;

/** The budget of the memos of every resource (see {@link PREPARED_JSON_CACHE}). */
const SHARED_POOL: ItemMemoPool = new ByteLru<MemoEntry>('prepared-json', PREPARED_JSON_CACHE.bytes);

/**
 * The JSON of items by key, reused while every input an item was made from is the same, compared value by value
 * (primitive values; strings by content): the caller lists the complete inputs, so a hit gives exactly the text
 * preparing the item again would give. Keeps the most recently used items within a budget in bytes — by default the
 * one every memo of the process shares ({@link PREPARED_JSON_CACHE}) — counting their JSON, its UTF-8 bytes (one a
 * character until they are written), their string inputs and {@link MEMO_ENTRY_BYTES}; an item larger than an
 * eighth of the budget is not kept.
 *
 * @example
 * const inputs = [post.id, post.modifiedGmt, post.content, req.context];
 * const text = memo.get(key, inputs) ?? memo.set(key, inputs, JSON.stringify(prepare(post)));
 */
export class ItemMemo {
  private readonly entries = new Map<string, MemoEntry>();
  readonly pool: ItemMemoPool;

  /** `budget`: bytes of a budget of its own, or a pool shared with other memos (default: the process's). */
  constructor(budget: number | ItemMemoPool = SHARED_POOL) {
    this.pool = typeof budget === 'number' ? new ByteLru<MemoEntry>('prepared-json', budget) : budget;
  }

  get(key: string, inputs: readonly unknown[]): JsonText | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.value.inputs.length !== inputs.length) return undefined;
    // Strict equality, NaN equal to itself: Object.is but for 0 and -0, which JSON writes alike.
    for (let i = 0; i < inputs.length; i++) {
      const a = entry.value.inputs[i];
      const b = inputs[i];
      if (a !== b && (a === a || b === b)) return undefined;
    }
    this.pool.touch(entry);
    return entry.value.text;
  }

  /**
   * The item reused while its inputs are unchanged, else built. Built items are kept only when `asText` still
   * holds once built (a listener added meanwhile may have changed it); `inputs` null: built, never reused.
   */
  async reuse(
    key: string,
    inputs: readonly unknown[] | null,
    build: () => Promise<unknown>,
    asText: () => boolean,
  ): Promise<unknown> {
    const hit = inputs && this.get(key, inputs);
    if (hit) return hit;
    const item = await build();
    if (!inputs || !asText()) return item;
    const links = (item as { _links?: Record<string, unknown> } | null)?._links;
    return this.set(key, inputs, JSON.stringify(item), links);
  }

  set(key: string, inputs: readonly unknown[], text: string, links?: Record<string, unknown>): JsonText {
    const json = new JsonText(text, links);
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.pool.remove(old);
    }
    // The text two bytes a character, and its UTF-8 bytes (counted at one a character until they are encoded).
    let size = MEMO_ENTRY_BYTES + key.length * 2 + text.length * 3 + inputs.length * 8;
    for (const input of inputs) if (typeof input === 'string') size += input.length * 2;
    const entry = new MemoEntry(this, key, { inputs, text: json }, size);
    if (this.pool.admit(entry)) {
      this.entries.set(key, entry);
      json.heldBy = entry;
    }
    return json;
  }

  /** Forgets an entry its pool dropped. */
  forget(entry: MemoEntry): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }
}
