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
 * (primitive values; strings by content): the caller lists the complete inputs, so a hit gives exactly the text preparing the item
 * again would give. Keeps the latest `max` items.
 *
 * @example
 * const inputs = [post.id, post.modifiedGmt, post.content, req.context];
 * const text = memo.get(key, inputs) ?? memo.set(key, inputs, JSON.stringify(prepare(post)));
 */
export class ItemMemo {
  private readonly entries = new Map<string, { inputs: readonly unknown[]; text: JsonText }>();

  constructor(private readonly max = 2000) {}

  get(key: string, inputs: readonly unknown[]): JsonText | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.inputs.length !== inputs.length) return undefined;
    for (let i = 0; i < inputs.length; i++) if (!Object.is(entry.inputs[i], inputs[i])) return undefined;
    return entry.text;
  }

  set(key: string, inputs: readonly unknown[], text: string): JsonText {
    const entry = { inputs, text: new JsonText(text) };
    if (this.entries.has(key)) this.entries.delete(key);
    else if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, entry);
    return entry.text;
  }
}
