/**
 * A value of response data already serialized: the HTTP layer writes its text where the value goes (see
 * {@link toJson}). Serialized any other way it still gives the same JSON, through `toJSON`.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** The JSON of response data: `JSON.stringify`, with the text of {@link JsonText} values spliced in as it is. */
export function toJson(data: unknown): string {
  if (data instanceof JsonText) return data.text;
  if (!Array.isArray(data) || !data.some((item) => item instanceof JsonText)) return JSON.stringify(data ?? null);
  const parts = new Array<string>(data.length);
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    parts[i] = item instanceof JsonText ? item.text : (JSON.stringify(item) ?? 'null');
  }
  return `[${parts.join(',')}]`;
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
