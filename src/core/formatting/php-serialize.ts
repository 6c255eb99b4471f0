/**
 * PHP `serialize()` / `unserialize()` and WordPress's `maybe_serialize()`, `maybe_unserialize()` and
 * `is_serialized()`, so that meta values and options are stored byte-for-byte as WordPress stores them.
 *
 * Written here rather than taken from the `php-serialize` package, which needs a class scope for `stdClass`,
 * keeps string keys such as `"0"` that PHP turns into integer keys, and writes floats differently from PHP.
 *
 * Mapping: PHP arrays whose keys are exactly 0..n-1 in order become JS arrays, other PHP arrays and all PHP
 * objects become plain objects; string lengths are counted in UTF-8 bytes, as PHP counts them.
 */

/** Characters stripped by PHP's `trim()` (not the same set as `String.prototype.trim`). */
const PHP_TRIM_CHARS = ' \t\n\r\0\x0B';

/** PHP `trim()` with its default character list. */
export function phpTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PHP_TRIM_CHARS.includes(text[start])) start++;
  while (end > start && PHP_TRIM_CHARS.includes(text[end - 1])) end--;
  return text.slice(start, end);
}

/** Key strings that PHP stores as integer array keys ("0", "12", "-3"; not "012", "+1", "1.0"). */
const PHP_INT_KEY = /^(0|-?[1-9][0-9]*)$/;

function isPhpIntKey(key: string): boolean {
  return PHP_INT_KEY.test(key) && Number.isSafeInteger(Number(key));
}

function serializeString(text: string): string {
  return `s:${Buffer.byteLength(text, 'utf8')}:"${text}";`;
}

/** Formats a non-integer number like PHP's `serialize()` with `serialize_precision = -1`. */
function serializeFloat(value: number): string {
  if (Number.isNaN(value)) return 'd:NAN;';
  if (value === Infinity) return 'd:INF;';
  if (value === -Infinity) return 'd:-INF;';
  if (Object.is(value, -0)) return 'd:-0;';
  // toExponential() without argument gives the shortest round-trip digits, as PHP's mode-0 zend_gcvt does.
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const decimalPoint = exponent + 1;
  if (decimalPoint < -3 || decimalPoint > 17) {
    const fixedMantissa = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
    return `d:${fixedMantissa}E${exponent < 0 ? '-' : '+'}${Math.abs(exponent)};`;
  }
  return `d:${String(value)};`;
}

function serializeKey(key: string): string {
  return isPhpIntKey(key) ? `i:${key};` : serializeString(key);
}

/**
 * PHP `serialize()` of a JS value.
 *
 * `null`/`undefined` → `N;`, booleans → `b:`, safe integers and bigints → `i:`, other numbers → `d:`,
 * strings → `s:` (UTF-8 byte length), arrays → `a:` with keys 0..n-1, other objects → `a:` with their own
 * enumerable keys (numeric-looking keys become integer keys, as in PHP). Functions and symbols throw.
 *
 * @example phpSerialize({ administrator: true }) // 'a:1:{s:13:"administrator";b:1;}'
 */
export function phpSerialize(value: unknown): string {
  if (value === null || value === undefined) return 'N;';
  switch (typeof value) {
    case 'boolean':
      return `b:${value ? 1 : 0};`;
    case 'number':
      return Number.isSafeInteger(value) && !Object.is(value, -0) ? `i:${value};` : serializeFloat(value);
    case 'bigint':
      return `i:${value.toString()};`;
    case 'string':
      return serializeString(value);
    case 'object': {
      if (Array.isArray(value)) {
        let body = '';
        for (let i = 0; i < value.length; i++) body += `i:${i};${phpSerialize(value[i])}`;
        return `a:${value.length}:{${body}}`;
      }
      if (value instanceof Map) {
        let body = '';
        for (const [key, item] of value) body += `${serializeKey(String(key))}${phpSerialize(item)}`;
        return `a:${value.size}:{${body}}`;
      }
      const entries = Object.entries(value as Record<string, unknown>);
      const body = entries.map(([key, item]) => `${serializeKey(key)}${phpSerialize(item)}`).join('');
      return `a:${entries.length}:{${body}}`;
    }
    default:
      throw new TypeError(`phpSerialize: cannot serialize a value of type ${typeof value}`);
  }
}

/** Error thrown by {@link phpUnserialize} on malformed or unsupported input. */
export class PhpUnserializeError extends Error {
  constructor(message: string, offset: number) {
    super(`phpUnserialize: ${message} at byte ${offset}`);
    this.name = 'PhpUnserializeError';
  }
}

const CHAR_COLON = 0x3a;
const CHAR_SEMICOLON = 0x3b;
const CHAR_QUOTE = 0x22;
const CHAR_OPEN = 0x7b;
const CHAR_CLOSE = 0x7d;

/** Recursive-descent reader over the UTF-8 bytes of a serialized value. */
class Reader {
  private pos = 0;

  constructor(private readonly bytes: Buffer) {}

  /** Reads one value starting at the current position. */
  readValue(): unknown {
    const type = this.bytes[this.pos];
    if (type === undefined) this.fail('unexpected end of data');
    const tag = String.fromCharCode(type);
    if (tag === 'N') {
      this.pos++;
      this.expect(CHAR_SEMICOLON);
      return null;
    }
    this.pos++;
    this.expect(CHAR_COLON);
    switch (tag) {
      case 'b': {
        const text = this.readUntil(CHAR_SEMICOLON);
        if (text !== '0' && text !== '1') this.fail(`invalid boolean "${text}"`);
        return text === '1';
      }
      case 'i': {
        const text = this.readUntil(CHAR_SEMICOLON);
        if (!/^[+-]?[0-9]+$/.test(text)) this.fail(`invalid integer "${text}"`);
        return Number(text);
      }
      case 'd':
        return this.readFloat(this.readUntil(CHAR_SEMICOLON));
      case 's': {
        const text = this.readQuoted();
        this.expect(CHAR_SEMICOLON);
        return text;
      }
      case 'a': {
        const count = this.readLength();
        return this.readEntries(count, true);
      }
      case 'O': {
        const className = this.readQuoted();
        this.expect(CHAR_COLON);
        const count = this.readLength();
        const object = this.readEntries(count, false) as Record<string, unknown>;
        if (className !== 'stdClass') {
          Object.defineProperty(object, '__PHP_Incomplete_Class_Name', {
            value: className,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return object;
      }
      default:
        return this.fail(`unsupported type "${tag}"`);
    }
  }

  private readFloat(text: string): number {
    if (text === 'NAN') return NaN;
    if (text === 'INF') return Infinity;
    if (text === '-INF') return -Infinity;
    if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text)) this.fail(`invalid float "${text}"`);
    return Number(text);
  }

  /** Reads `N:` (count / byte length) followed by the terminating colon. */
  private readLength(): number {
    const text = this.readUntil(CHAR_COLON);
    if (!/^[0-9]+$/.test(text)) this.fail(`invalid length "${text}"`);
    return Number(text);
  }

  /** Reads `<len>:"<len bytes>"` and returns the bytes decoded as UTF-8. */
  private readQuoted(): string {
    const length = this.readLength();
    this.expect(CHAR_QUOTE);
    const end = this.pos + length;
    if (end > this.bytes.length) this.fail(`string length ${length} runs past the end of the data`);
    const text = this.bytes.toString('utf8', this.pos, end);
    this.pos = end;
    this.expect(CHAR_QUOTE);
    return text;
  }

  private readEntries(count: number, listIfSequential: boolean): unknown[] | Record<string, unknown> {
    this.expect(CHAR_OPEN);
    const keys: (string | number)[] = [];
    const values: unknown[] = [];
    for (let i = 0; i < count; i++) {
      const key = this.readValue();
      if (typeof key === 'number') keys.push(key);
      else if (typeof key === 'string') keys.push(isPhpIntKey(key) ? Number(key) : key);
      else this.fail('array key must be an integer or a string');
      values.push(this.readValue());
    }
    this.expect(CHAR_CLOSE);
    if (listIfSequential && keys.every((key, index) => key === index)) return values;
    const object: Record<string, unknown> = {};
    keys.forEach((key, index) => {
      // defineProperty so that a "__proto__" key is stored as data, not as the prototype.
      Object.defineProperty(object, String(key), {
        value: values[index],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    });
    return object;
  }

  private readUntil(terminator: number): string {
    const end = this.bytes.indexOf(terminator, this.pos);
    if (end < 0) this.fail(`missing "${String.fromCharCode(terminator)}"`);
    const text = this.bytes.toString('latin1', this.pos, end);
    this.pos = end + 1;
    return text;
  }

  private expect(char: number): void {
    if (this.bytes[this.pos] !== char) this.fail(`expected "${String.fromCharCode(char)}"`);
    this.pos++;
  }

  private fail(message: string): never {
    throw new PhpUnserializeError(message, this.pos);
  }
}

/**
 * PHP `unserialize()`: parses a serialized value (as stored by WordPress) into JS.
 *
 * Arrays with keys 0..n-1 in order → arrays; other arrays and objects → plain objects (objects of a class
 * other than `stdClass` get a `__PHP_Incomplete_Class_Name` property, like PHP's incomplete class). Trailing
 * bytes after the value are ignored, as PHP does. References (`r:`/`R:`), `C:` and enums are not supported.
 *
 * @throws PhpUnserializeError on malformed input.
 */
export function phpUnserialize(text: string): unknown {
  return new Reader(Buffer.from(text, 'utf8')).readValue();
}

/**
 * WordPress `is_serialized()`: whether a value is a string that looks serialized. Checks run on the UTF-8
 * bytes, as PHP runs them.
 *
 * @param strict when true (default) the data must end with `;` or `}`.
 */
export function isSerialized(data: unknown, strict = true): boolean {
  if (typeof data !== 'string') return false;
  // Work on one char per byte so that positions and lengths match PHP's byte-based strpos/strlen.
  const bytes = Buffer.from(phpTrim(data), 'utf8').toString('latin1');
  if (bytes === 'N;') return true;
  if (bytes.length < 4) return false;
  if (bytes[1] !== ':') return false;
  if (strict) {
    const last = bytes[bytes.length - 1];
    if (last !== ';' && last !== '}') return false;
  } else {
    const semicolon = bytes.indexOf(';');
    const brace = bytes.indexOf('}');
    if (semicolon < 0 && brace < 0) return false;
    if (semicolon >= 0 && semicolon < 3) return false;
    if (brace >= 0 && brace < 4) return false;
  }
  const token = bytes[0];
  switch (token) {
    case 's':
      if (strict) {
        if (bytes[bytes.length - 2] !== '"') return false;
      } else if (!bytes.includes('"')) {
        return false;
      }
    // falls through
    case 'a':
    case 'O':
    case 'E':
      return new RegExp(`^${token}:[0-9]+:`, 's').test(bytes);
    case 'b':
    case 'i':
    case 'd':
      return new RegExp(`^${token}:[0-9.E+-]+;${strict ? '$' : ''}`).test(bytes);
    default:
      return false;
  }
}

/**
 * WordPress `maybe_serialize()`, returning the string that WordPress would store in the database.
 *
 * Arrays and objects are serialized; strings that already look serialized are serialized again (WordPress's
 * double serialization); other strings are returned as they are; numbers and bigints become their decimal
 * string, `true` → `'1'`, `false`/`null`/`undefined` → `''` (what wpdb writes for them).
 */
export function maybeSerialize(value: unknown): string {
  if (value !== null && typeof value === 'object') return phpSerialize(value);
  if (typeof value === 'string') return isSerialized(value, false) ? phpSerialize(value) : value;
  if (value === null || value === undefined || value === false) return '';
  if (value === true) return '1';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  throw new TypeError(`maybeSerialize: cannot store a value of type ${typeof value}`);
}

/**
 * WordPress `maybe_unserialize()`: unserializes a stored value when it looks serialized, else returns it as is.
 * Like PHP's `@unserialize()`, malformed serialized data gives `false`.
 */
export function maybeUnserialize(data: unknown): unknown {
  if (typeof data !== 'string' || !isSerialized(data)) return data;
  try {
    return phpUnserialize(phpTrim(data));
  } catch (error) {
    if (error instanceof PhpUnserializeError) return false;
    throw error;
  }
}

/**
 * The text of a value read from the database, the options or a request, as PHP would print it: text as is, numbers
 * and booleans as `String` writes them, lists joined with commas, `null`, `undefined` and other objects as ''.
 */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(textOf).join(',');
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}
