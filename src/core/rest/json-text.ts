/**
 * A value of response data already serialized: the HTTP layer writes its bytes where the value goes (see
 * {@link toJsonBytes}). Serialized any other way it still gives the same JSON, through `toJSON`.
 */
export class JsonText {
  private encoded?: Buffer;

  constructor(readonly text: string) {}

  /** The text in UTF-8, encoded once for all the responses it goes into. */
  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from(this.text));
  }

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
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
  private readonly entries = new Map<string, { inputs: readonly unknown[]; text: JsonText; size: number }>();
  private size = 0;

  constructor(private readonly maxChars = 8 * 1024 * 1024) {}

  get(key: string, inputs: readonly unknown[]): JsonText | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.inputs.length !== inputs.length) return undefined;
    for (let i = 0; i < inputs.length; i++) if (!Object.is(entry.inputs[i], inputs[i])) return undefined;
    // Most recently used last: eviction takes the first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.text;
  }

  set(key: string, inputs: readonly unknown[], text: string): JsonText {
    const json = new JsonText(text);
    this.delete(key);
    let size = text.length;
    for (const input of inputs) if (typeof input === 'string') size += input.length;
    if (size > this.maxChars / 10) return json;
    while (this.size + size > this.maxChars) this.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { inputs, text: json, size });
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
