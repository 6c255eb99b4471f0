/**
 * WordPress's block parser and static block rendering (`parse_blocks()`, `render_block()`, `do_blocks()`), a leaf
 * the content filters, excerpts and kses all read blocks through.
 */
import { PCRE_SPACE } from './texturize';

/** A parsed block, as returned by `parse_blocks()` (`WP_Block_Parser_Block` cast to array). */
export interface ParsedBlock {
  blockName: string | null;
  attrs: Record<string, unknown> | unknown[] | null;
  innerBlocks: ParsedBlock[];
  innerHTML: string;
  innerContent: (string | null)[];
  /** The raw attributes JSON of the block delimiter (only with `parseBlocks(text, { keepRawAttrs: true })`). */
  rawAttrs?: string;
}

const SP = PCRE_SPACE;
/**
 * `WP_Block_Parser::next_token()`'s delimiter regex. The possessive `*+` of the attributes loop is
 * emulated with a lookahead capture (group 5); `.` with the `s` flag is `[\s\S]`.
 */
const BLOCK_TOKEN = new RegExp(
  `<!--${SP}+(\\/)?wp:([a-z][a-z0-9_-]*\\/)?([a-z][a-z0-9_-]*)${SP}+` +
    `(\\{(?=((?:[^}]+|\\}+(?=\\})|(?!\\}${SP}+\\/?-->)[\\s\\S])*))\\5\\}${SP}+)?` +
    '(\\/)?-->',
  'g',
);

/** PHP `empty()` for a string. */
function phpEmpty(s: string | null | undefined): boolean {
  return s === undefined || s === null || s === '' || s === '0';
}

function freeform(innerHTML: string): ParsedBlock {
  return { blockName: null, attrs: {}, innerBlocks: [], innerHTML, innerContent: [innerHTML] };
}

interface Frame {
  block: ParsedBlock;
  tokenStart: number;
  tokenLength: number;
  prevOffset: number;
  leadingHtmlStart: number | null;
}

/** Decodes a block's attributes like `json_decode( $json, true )` (null when invalid). */
function decodeAttrs(json: string): Record<string, unknown> | unknown[] | null {
  try {
    const v = JSON.parse(json) as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** `parse_blocks( $content )`: a port of `WP_Block_Parser` (WordPress 6.1). */
export function parseBlocks(document: string, options: { keepRawAttrs?: boolean } = {}): ParsedBlock[] {
  const output: ParsedBlock[] = [];
  const stack: Frame[] = [];
  let offset = 0;

  const addFreeform = (length?: number): void => {
    const len = length ? length : document.length - offset;
    if (len === 0) return;
    output.push(freeform(document.substr(offset, len)));
  };

  const addInnerBlock = (block: ParsedBlock, tokenStart: number, tokenLength: number, lastOffset?: number): void => {
    const parent = stack[stack.length - 1];
    parent.block.innerBlocks.push(block);
    const html = document.slice(parent.prevOffset, tokenStart);
    if (!phpEmpty(html)) {
      parent.block.innerHTML += html;
      parent.block.innerContent.push(html);
    }
    parent.block.innerContent.push(null);
    parent.prevOffset = lastOffset ? lastOffset : tokenStart + tokenLength;
  };

  const addBlockFromStack = (endOffset?: number): void => {
    const top = stack.pop() as Frame;
    const prevOffset = top.prevOffset;
    const html = endOffset !== undefined ? document.slice(prevOffset, endOffset) : document.slice(prevOffset);
    if (!phpEmpty(html)) {
      top.block.innerHTML += html;
      top.block.innerContent.push(html);
    }
    if (top.leadingHtmlStart !== null) {
      output.push(freeform(document.slice(top.leadingHtmlStart, top.tokenStart)));
    }
    output.push(top.block);
  };

  for (;;) {
    BLOCK_TOKEN.lastIndex = offset;
    const m = BLOCK_TOKEN.exec(document);
    const stackDepth = stack.length;

    if (m === null) {
      // no-more-tokens
      if (stackDepth === 0) {
        addFreeform();
        break;
      }
      if (stackDepth === 1) {
        addBlockFromStack();
        break;
      }
      while (stack.length > 0) addBlockFromStack();
      break;
    }

    const startOffset = m.index;
    const tokenLength = m[0].length;
    const isCloser = m[1] !== undefined;
    const isVoid = m[6] !== undefined;
    const blockName = (m[2] !== undefined ? m[2] : 'core/') + m[3];
    const hasAttrs = m[4] !== undefined;
    const attrs = hasAttrs ? decodeAttrs(m[4]) : {};
    const raw = options.keepRawAttrs && hasAttrs ? { rawAttrs: m[4] } : {};
    const leadingHtmlStart = startOffset > offset ? offset : null;

    if (isVoid) {
      // void-block (PHP checks the void flag before the closer flag).
      if (stackDepth === 0) {
        if (leadingHtmlStart !== null) {
          output.push(freeform(document.slice(leadingHtmlStart, startOffset)));
        }
        output.push({ blockName, attrs, innerBlocks: [], innerHTML: '', innerContent: [], ...raw });
        offset = startOffset + tokenLength;
        continue;
      }
      addInnerBlock(
        { blockName, attrs, innerBlocks: [], innerHTML: '', innerContent: [], ...raw },
        startOffset,
        tokenLength,
      );
      offset = startOffset + tokenLength;
      continue;
    }
    if (!isCloser) {
      // block-opener
      stack.push({
        block: { blockName, attrs, innerBlocks: [], innerHTML: '', innerContent: [], ...raw },
        tokenStart: startOffset,
        tokenLength,
        prevOffset: startOffset + tokenLength,
        leadingHtmlStart,
      });
      offset = startOffset + tokenLength;
      continue;
    }
    // block-closer
    if (stackDepth === 0) {
      // Stray closer: everything left is freeform.
      addFreeform();
      break;
    }
    if (stackDepth === 1) {
      addBlockFromStack(startOffset);
      offset = startOffset + tokenLength;
      continue;
    }
    const top = stack.pop() as Frame;
    const html = document.slice(top.prevOffset, startOffset);
    top.block.innerHTML += html;
    top.block.innerContent.push(html);
    top.prevOffset = startOffset + tokenLength;
    addInnerBlock(top.block, top.tokenStart, top.tokenLength, startOffset + tokenLength);
    offset = startOffset + tokenLength;
  }
  return output;
}

/**
 * `render_block()` for static blocks: the block's inner content with its inner blocks rendered in
 * place. Dynamic blocks (those with a PHP `render_callback`, e.g. core/latest-posts) and the markup
 * that 6.1's block supports add on render (layout classes such as `is-layout-flow`, typography,
 * duotone, link colours) are not reproduced.
 */
export function renderBlock(block: ParsedBlock): string {
  let content = '';
  let index = 0;
  for (const chunk of block.innerContent) {
    if (typeof chunk === 'string') {
      content += chunk;
    } else {
      const inner = block.innerBlocks[index++];
      if (inner) content += renderBlock(inner);
    }
  }
  return content;
}

/** `has_blocks( $content )`. */
export function hasBlocks(content: string): boolean {
  return content.includes('<!-- wp:');
}

/** `do_blocks( $content )` (static blocks only, see {@link renderBlock}). */
export function doBlocks(content: string): string {
  return parseBlocks(content).map(renderBlock).join('');
}
