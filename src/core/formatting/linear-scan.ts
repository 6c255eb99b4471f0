/**
 * Linear-time replacements for WordPress regexes that backtrack over the rest of the text at every failed start
 * (`<[^\n]*?>`, `<(script|style)…</\1>`, the shortcode regex's closing-tag search): a text made of many such starts
 * and no end costs the square of its length in PCRE and in JavaScript alike. These scanners give the same matches
 * and remember where the next end is, so each character is looked at a bounded number of times.
 */

/**
 * The next index of a fixed string at or after a position, for positions that only grow: a search is made again
 * only once the position passes the index found (and never again once there is none).
 */
export class NextIndex {
  private found = -2;
  private from = 0;

  constructor(
    private readonly text: string,
    private readonly needle: string,
  ) {}

  at(position: number): number {
    if (this.found === -1 && position >= this.from) return -1;
    if (this.found >= position && position >= this.from) return this.found;
    this.from = position;
    this.found = this.text.indexOf(this.needle, position);
    return this.found;
  }
}

/**
 * `preg_split( '/(<[^\n]*?>)/', $text, -1, PREG_SPLIT_DELIM_CAPTURE )`: a tag is a `<` and everything up to the
 * first `>` on the same line; text and tags alternate (tags at odd indices).
 */
export function splitLineTags(text: string): string[] {
  const out: string[] = [];
  const gt = new NextIndex(text, '>');
  const nl = new NextIndex(text, '\n');
  let last = 0;
  let from = 0;
  for (;;) {
    const lt = text.indexOf('<', from);
    if (lt === -1) break;
    const close = gt.at(lt + 1);
    if (close === -1) break;
    const newline = nl.at(lt + 1);
    if (newline !== -1 && newline < close) {
      // No `<` before this newline has a `>` on its line.
      from = newline + 1;
      continue;
    }
    out.push(text.slice(last, lt), text.slice(lt, close + 1));
    last = from = close + 1;
  }
  out.push(text.slice(last));
  return out;
}

/** ASCII-only lower case (the case folding of a JavaScript regex's `i` flag for ASCII names). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * Replaces each element `<name…</name>` of the given names, as `/<(a|b)[\s\S]*?<\/\1>/g` does (with
 * `openTagEnd`, `/<(a|b)[^>]*?>[\s\S]*?<\/\1>/g`, the end of the opening tag first; with `ignoreCase`, the `i`
 * flag). `replace` gets the whole element and returns its replacement.
 */
export function replaceElements(
  text: string,
  names: readonly string[],
  options: { ignoreCase?: boolean; openTagEnd?: boolean },
  replace: (element: string) => string,
): string {
  const haystack = options.ignoreCase ? asciiLower(text) : text;
  const opens = names.map((name) => new NextIndex(haystack, `<${name}`));
  const closes = names.map((name) => new NextIndex(haystack, `</${name}>`));
  const gt = new NextIndex(haystack, '>');
  const live = names.map(() => true);
  let out = '';
  let last = 0;
  let from = 0;
  for (;;) {
    // The earliest start of any name that can still match (the first listed name wins at the same place).
    let start = -1;
    let which = -1;
    for (let n = 0; n < names.length; n++) {
      if (!live[n]) continue;
      const at = opens[n].at(from);
      if (at === -1) live[n] = false;
      else if (start === -1 || at < start) [start, which] = [at, n];
    }
    if (which === -1) break;
    let bodyFrom = start + 1 + names[which].length;
    if (options.openTagEnd) {
      const end = gt.at(bodyFrom);
      // No later element has the end of its opening tag either.
      if (end === -1) break;
      bodyFrom = end + 1;
    }
    const close = closes[which].at(bodyFrom);
    if (close === -1) {
      // No later element of this name is closed either.
      live[which] = false;
      continue;
    }
    const end = close + names[which].length + 3;
    out += text.slice(last, start) + replace(text.slice(start, end));
    last = from = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

const WORD_OR_DASH = /[\w-]/;

/**
 * The matches of `get_shortcode_regex( $tagnames )`, in order, as `String.prototype.replace` gives its groups:
 * `[whole, open, name, attributes, selfClosing, content, content, close]` (1 `[` of `[[tag]]`, 2 the name, 3 the
 * attributes, 4 `/` of `[tag /]`, 5 and 6 the content up to the first `[/tag]`, 7 `]` of `[[tag]]`; a group that took no
 * part is undefined, as in a regex match).
 */
export function replaceShortcodeMatches(
  text: string,
  tagnames: readonly string[],
  replace: (match: (string | undefined)[]) => string,
): [string, number] {
  const bracket = new NextIndex(text, ']');
  const closings = new Map<string, NextIndex>();
  let out = '';
  let last = 0;
  let count = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf('[', from);
    if (start === -1) break;
    from = start + 1;
    const open = text[start + 1] === '[' ? '[' : '';
    const nameAt = start + 1 + open.length;
    const name = tagnames.find((t) => text.startsWith(t, nameAt) && !WORD_OR_DASH.test(text[nameAt + t.length] ?? ''));
    if (name === undefined) continue;
    // The attributes run to the first `]`, less a `/` just before it (`[tag /]`).
    const headEnd = bracket.at(nameAt + name.length);
    if (headEnd === -1) break;
    const selfClosing = headEnd > nameAt + name.length && text[headEnd - 1] === '/';
    const attributes = text.slice(nameAt + name.length, selfClosing ? headEnd - 1 : headEnd);
    let end = headEnd + 1;
    let content: string | undefined;
    if (!selfClosing) {
      let closing = closings.get(name);
      if (!closing) closings.set(name, (closing = new NextIndex(text, `[/${name}]`)));
      const at = closing.at(end);
      if (at !== -1) {
        content = text.slice(end, at);
        end = at + name.length + 3;
      }
    }
    const close = text[end] === ']' ? ']' : '';
    end += close.length;
    const whole = text.slice(start, end);
    out +=
      text.slice(last, start) +
      replace([whole, open, name, attributes, selfClosing ? '/' : undefined, content, content, close]);
    count++;
    last = from = end;
  }
  return [last === 0 ? text : out + text.slice(last), count];
}
