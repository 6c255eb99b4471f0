import { isSerialized } from '../core/formatting/php-serialize';

/** What {@link replaceInValue} did to one stored value. */
export interface ReplacedValue {
  /** The value with every occurrence replaced (the input when nothing matched or it was left alone). */
  value: string;
  /** How many occurrences were replaced. */
  count: number;
  /** The value looks PHP-serialized but could not be read: it was left as it is, not to corrupt it further. */
  malformed: boolean;
}

/** Deepest nesting of serialized values (arrays in arrays, serialized strings in strings) this rewrites. */
const MAX_DEPTH = 64;

class MalformedSerialized extends Error {}

/** Counts and replaces the occurrences of `search` in a plain text. */
function replacePlain(text: string, search: string, replace: string): { value: string; count: number } {
  const parts = text.split(search);
  return { value: parts.join(replace), count: parts.length - 1 };
}

/**
 * Replaces `search` with `replace` in a stored value (`wp search-replace`): in plain text everywhere; in a
 * PHP-serialized value, in its string values only (array keys and class names stay as they are), each string
 * written back with its new length in UTF-8 bytes, so that PHP's `unserialize()` still reads it. A string that is
 * itself serialized (a value serialized twice) is rewritten the same way. A value that looks serialized but is
 * malformed is left alone (`malformed`), as a plain replacement would leave the lengths wrong.
 */
export function replaceInValue(text: string, search: string, replace: string): ReplacedValue {
  if (!search || !text.includes(search)) return { value: text, count: 0, malformed: false };
  if (!isSerialized(text)) return { ...replacePlain(text, search, replace), malformed: false };
  try {
    const rewriter = new SerializedRewriter(Buffer.from(text, 'utf8'), search, replace, 0);
    const value = rewriter.rewriteAll();
    return { value, count: rewriter.count, malformed: false };
  } catch (error) {
    if (error instanceof MalformedSerialized) return { value: text, count: 0, malformed: true };
    throw error;
  }
}

/**
 * Copies a serialized value token by token, replacing inside its `s:` strings (and recomputing their byte
 * lengths); everything else — integers, floats, booleans, references, `C:` custom payloads, enums — is copied
 * byte for byte.
 */
class SerializedRewriter {
  private pos = 0;
  private out = '';
  count = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly search: string,
    private readonly replace: string,
    private readonly depth: number,
  ) {
    if (depth > MAX_DEPTH) throw new MalformedSerialized('nested too deeply');
  }

  /** The whole value rewritten, with any bytes after it (PHP ignores them) kept. */
  rewriteAll(): string {
    this.value(false);
    return this.out + this.bytes.toString('utf8', this.pos);
  }

  private value(isKey: boolean, level = 0): void {
    if (level > MAX_DEPTH) throw new MalformedSerialized('nested too deeply');
    const tag = String.fromCharCode(this.bytes[this.pos] ?? 0);
    switch (tag) {
      case 'N':
        this.copyThrough(';');
        return;
      case 'b':
      case 'i':
      case 'd':
      case 'r':
      case 'R':
        this.copyThrough(';');
        return;
      case 's': {
        this.pos += 2; // s:
        const text = this.quoted();
        this.expect(';');
        this.out += isKey ? stringToken(text) : stringToken(this.replaced(text));
        return;
      }
      case 'a': {
        this.copyThrough(':');
        const count = this.length(':');
        this.out += `${count}:`;
        this.entries(count, level);
        return;
      }
      case 'O': {
        this.copyThrough(':');
        const nameLength = this.length(':');
        this.copyBytes(nameLength + 3, `${nameLength}:`); // "Name":
        const count = this.length(':');
        this.out += `${count}:`;
        this.entries(count, level);
        return;
      }
      case 'C': {
        this.copyThrough(':');
        const nameLength = this.length(':');
        this.copyBytes(nameLength + 3, `${nameLength}:`);
        const payload = this.length(':');
        this.copyBytes(payload + 2, `${payload}:`); // {payload}
        return;
      }
      case 'E': {
        this.copyThrough(':');
        const length = this.length(':');
        this.copyBytes(length + 3, `${length}:`); // "Class:Case";
        return;
      }
      default:
        throw new MalformedSerialized(`unexpected "${tag}"`);
    }
  }

  /** `{` key value … `}`: keys are copied, values rewritten. */
  private entries(count: number, level: number): void {
    this.expect('{');
    this.out += '{';
    for (let i = 0; i < count; i++) {
      this.value(true, level + 1);
      this.value(false, level + 1);
    }
    this.expect('}');
    this.out += '}';
  }

  /** A string value replaced: a serialized string is rewritten as a serialized value, others as text. */
  private replaced(text: string): string {
    if (!text.includes(this.search)) return text;
    if (isSerialized(text)) {
      const inner = new SerializedRewriter(Buffer.from(text, 'utf8'), this.search, this.replace, this.depth + 1);
      const value = inner.rewriteAll();
      this.count += inner.count;
      return value;
    }
    const { value, count } = replacePlain(text, this.search, this.replace);
    this.count += count;
    return value;
  }

  /** Reads `<len>:"<len bytes>"` (after the tag and colon) as UTF-8 text. */
  private quoted(): string {
    const length = this.length(':');
    this.expect('"');
    const end = this.pos + length;
    if (end > this.bytes.length) throw new MalformedSerialized('string runs past the end');
    const text = this.bytes.toString('utf8', this.pos, end);
    this.pos = end;
    this.expect('"');
    return text;
  }

  /** Reads a decimal length up to `terminator` (consumed). */
  private length(terminator: string): number {
    const end = this.bytes.indexOf(terminator, this.pos);
    const text = end < 0 ? '' : this.bytes.toString('latin1', this.pos, end);
    if (!/^[0-9]{1,10}$/.test(text)) throw new MalformedSerialized('invalid length');
    this.pos = end + 1;
    return Number(text);
  }

  /** Copies the bytes up to and including `terminator`. */
  private copyThrough(terminator: string): void {
    const end = this.bytes.indexOf(terminator, this.pos);
    if (end < 0) throw new MalformedSerialized(`missing "${terminator}"`);
    this.out += this.bytes.toString('utf8', this.pos, end + 1);
    this.pos = end + 1;
  }

  /** Writes `prefix`, then copies `count` bytes as they are. */
  private copyBytes(count: number, prefix: string): void {
    if (this.pos + count > this.bytes.length) throw new MalformedSerialized('runs past the end');
    this.out += prefix + this.bytes.toString('utf8', this.pos, this.pos + count);
    this.pos += count;
  }

  private expect(char: string): void {
    if (this.bytes[this.pos] !== char.charCodeAt(0)) throw new MalformedSerialized(`expected "${char}"`);
    this.pos++;
  }
}

/** `s:<UTF-8 byte length>:"<text>";` */
function stringToken(text: string): string {
  return `s:${Buffer.byteLength(text, 'utf8')}:"${text}";`;
}
