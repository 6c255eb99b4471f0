/**
 * A value of response data already serialized: the HTTP layer writes its bytes where the value goes (see
 * {@link toJsonBytes}). Serialized any other way it still gives the same JSON, through `toJSON`.
 */
export class JsonText {
  private encoded?: Buffer;

  constructor(
    readonly text: string,
    /** The item's `_links` as they are in the text, for `_embed` to follow without parsing it. */
    readonly links?: Readonly<Record<string, unknown>>,
  ) {}

  /** The text in UTF-8, encoded once for all the responses it goes into. */
  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from(this.text));
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
 * itself, or items of a top-level array) copied in as they are.
 */
export function toJsonBytes(data: unknown): Buffer {
  if (data instanceof JsonText) return data.bytes;
  if (!Array.isArray(data) || !data.some((item) => item instanceof JsonText)) return Buffer.from(JSON.stringify(data ?? null));
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
 * The JSON of items by key, reused while every input an item was made from is the same, compared value by value
 * (primitive values; strings by content): the caller lists the complete inputs, so a hit gives exactly the text
 * preparing the item again would give. Keeps the most recently used items within a size budget, in characters of
 * their JSON and of their string inputs (each JSON is also kept as UTF-8 bytes once written), and no item larger
 * than a tenth of it.
 *
 * @example
 * const inputs = [post.id, post.modifiedGmt, post.content, req.context];
 * const text = memo.get(key, inputs) ?? memo.set(key, inputs, JSON.stringify(prepare(post)));
 */
export class ItemMemo {
  private readonly entries = new Map<string, { inputs: readonly unknown[]; text: JsonText; size: number; used: number }>();
  private size = 0;
  /** Counts placements at the recent end of {@link entries}, which is kept in order of last use. */
  private clock = 0;

  constructor(private readonly maxChars = 8 * 1024 * 1024) {}

  get(key: string, inputs: readonly unknown[]): JsonText | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.inputs.length !== inputs.length) return undefined;
    // Strict equality, NaN equal to itself: Object.is but for 0 and -0, which JSON writes alike.
    for (let i = 0; i < inputs.length; i++) {
      const a = entry.inputs[i];
      const b = inputs[i];
      if (a !== b && (a === a || b === b)) return undefined;
    }
    // Most recently used last: eviction takes the first. An entry among the more recently placed half stays where it
    // is (moving it costs two lookups of its key, on every hit of a page of items).
    if (this.clock - entry.used > this.entries.size >> 1) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.used = ++this.clock;
    }
    return entry.text;
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
    this.delete(key);
    let size = text.length;
    for (const input of inputs) if (typeof input === 'string') size += input.length;
    if (size > this.maxChars / 10) return json;
    while (this.size + size > this.maxChars) this.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { inputs, text: json, size, used: ++this.clock });
    this.size += size;
    return json;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.size -= entry.size;
  }
}
