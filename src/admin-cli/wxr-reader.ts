import { createReadStream } from 'node:fs';
import * as sax from 'sax';

/** A `<wp:author>` of a WXR file. */
export interface WxrAuthor {
  id: number;
  login: string;
  email: string;
  displayName: string;
  firstName: string;
  lastName: string;
}

export interface WxrMeta {
  key: string;
  value: string;
}

/** A `<wp:category>`, `<wp:tag>` or `<wp:term>`, in one shape. */
export interface WxrTerm {
  id: number;
  taxonomy: string;
  slug: string;
  name: string;
  /** The parent's slug ('' for none). */
  parent: string;
  description: string;
  meta: WxrMeta[];
}

export interface WxrComment {
  id: number;
  author: string;
  authorEmail: string;
  authorUrl: string;
  authorIp: string;
  date: string;
  dateGmt: string;
  content: string;
  approved: string;
  type: string;
  parent: number;
  userId: number;
  meta: WxrMeta[];
}

/** An `<item>`: a post of any type, with its terms, meta and comments. */
export interface WxrItem {
  title: string;
  link: string;
  guid: string;
  creator: string;
  content: string;
  excerpt: string;
  id: number;
  date: string;
  dateGmt: string;
  commentStatus: string;
  pingStatus: string;
  name: string;
  status: string;
  parent: number;
  menuOrder: number;
  type: string;
  password: string;
  sticky: boolean;
  attachmentUrl: string;
  terms: { taxonomy: string; slug: string; name: string }[];
  meta: WxrMeta[];
  comments: WxrComment[];
}

export type WxrRecord =
  | { kind: 'site'; version: string; baseSiteUrl: string; baseBlogUrl: string }
  | { kind: 'author'; author: WxrAuthor }
  | { kind: 'term'; term: WxrTerm }
  | { kind: 'item'; item: WxrItem }
  /** `<wp:nav_menu_location>`: a theme location and the slug of the menu in it (an extension of WXR, see docs/import.md). */
  | { kind: 'menuLocation'; location: string; menu: string };

/** Element names (without the `wp:` prefix) of each record's fields. */
const TERM_FIELDS: Record<string, keyof WxrTerm> = {
  term_id: 'id',
  category_nicename: 'slug',
  category_parent: 'parent',
  cat_name: 'name',
  category_description: 'description',
  tag_slug: 'slug',
  tag_name: 'name',
  tag_description: 'description',
  term_taxonomy: 'taxonomy',
  term_slug: 'slug',
  term_parent: 'parent',
  term_name: 'name',
  term_description: 'description',
};

const AUTHOR_FIELDS: Record<string, keyof WxrAuthor> = {
  author_id: 'id',
  author_login: 'login',
  author_email: 'email',
  author_display_name: 'displayName',
  author_first_name: 'firstName',
  author_last_name: 'lastName',
};

const ITEM_FIELDS: Record<string, keyof WxrItem> = {
  title: 'title',
  link: 'link',
  guid: 'guid',
  'dc:creator': 'creator',
  'content:encoded': 'content',
  'excerpt:encoded': 'excerpt',
  'wp:post_id': 'id',
  'wp:post_date': 'date',
  'wp:post_date_gmt': 'dateGmt',
  'wp:comment_status': 'commentStatus',
  'wp:ping_status': 'pingStatus',
  'wp:post_name': 'name',
  'wp:status': 'status',
  'wp:post_parent': 'parent',
  'wp:menu_order': 'menuOrder',
  'wp:post_type': 'type',
  'wp:post_password': 'password',
  'wp:is_sticky': 'sticky',
  'wp:attachment_url': 'attachmentUrl',
};

const COMMENT_FIELDS: Record<string, keyof WxrComment> = {
  comment_id: 'id',
  comment_author: 'author',
  comment_author_email: 'authorEmail',
  comment_author_url: 'authorUrl',
  comment_author_IP: 'authorIp',
  comment_date: 'date',
  comment_date_gmt: 'dateGmt',
  comment_content: 'content',
  comment_approved: 'approved',
  comment_type: 'type',
  comment_parent: 'parent',
  comment_user_id: 'userId',
};

function assign<T extends object>(target: T, field: keyof T, text: string): void {
  // Numbers where the record's default is one (a term's parent is a slug).
  const current = (target as Record<keyof T, unknown>)[field];
  const value =
    typeof current === 'number' ? Number(text.trim()) || 0 : typeof current === 'boolean' ? text.trim() === '1' : text;
  (target as Record<keyof T, unknown>)[field] = value;
}

const newTerm = (taxonomy: string): WxrTerm => ({
  id: 0,
  taxonomy,
  slug: '',
  name: '',
  parent: '',
  description: '',
  meta: [],
});
const newItem = (): WxrItem => ({
  title: '',
  link: '',
  guid: '',
  creator: '',
  content: '',
  excerpt: '',
  id: 0,
  date: '',
  dateGmt: '',
  commentStatus: '',
  pingStatus: '',
  name: '',
  status: '',
  parent: 0,
  menuOrder: 0,
  type: 'post',
  password: '',
  sticky: false,
  attachmentUrl: '',
  terms: [],
  meta: [],
  comments: [],
});
const newComment = (): WxrComment => ({
  id: 0,
  author: '',
  authorEmail: '',
  authorUrl: '',
  authorIp: '',
  date: '',
  dateGmt: '',
  content: '',
  approved: '1',
  type: '',
  parent: 0,
  userId: 0,
  meta: [],
});

/**
 * Reads a WXR file (WordPress's export, versions 1.0 to 1.2) as a stream, with `sax`: yields the site facts, then
 * each author, term and item as soon as its element closes, so that the file is never held whole in memory.
 * `onBytes` is told how many bytes were read so far (for a progress bar). A file that is not well-formed XML, or
 * not a WXR file, throws.
 */
export async function* readWxr(file: string, onBytes?: (bytes: number) => void): AsyncGenerator<WxrRecord> {
  const parser = sax.parser(true, { trim: false, normalize: false, position: false });
  const ready: WxrRecord[] = [];
  const stack: string[] = [];
  let text = '';
  let sawChannel = false;
  const site = { version: '', baseSiteUrl: '', baseBlogUrl: '' };
  let siteSent = false;
  let author: WxrAuthor | null = null;
  let term: WxrTerm | null = null;
  let item: WxrItem | null = null;
  let comment: WxrComment | null = null;
  let meta: WxrMeta | null = null;
  let category: { taxonomy: string; slug: string } | null = null;
  let location: { location: string; menu: string } | null = null;

  const flushSite = () => {
    if (siteSent) return;
    siteSent = true;
    ready.push({ kind: 'site', ...site });
  };

  parser.onopentag = (tag) => {
    const name = tag.name;
    stack.push(name);
    text = '';
    const parent = stack[stack.length - 2];
    if (name === 'channel') sawChannel = true;
    else if (name === 'wp:nav_menu_location' && parent === 'channel') location = { location: '', menu: '' };
    else if (name === 'wp:author' && parent === 'channel')
      author = { id: 0, login: '', email: '', displayName: '', firstName: '', lastName: '' };
    else if (name === 'wp:category' && parent === 'channel') term = newTerm('category');
    else if (name === 'wp:tag' && parent === 'channel') term = newTerm('post_tag');
    else if (name === 'wp:term' && parent === 'channel') term = newTerm('');
    else if (name === 'item' && parent === 'channel') {
      flushSite();
      item = newItem();
    } else if (name === 'wp:comment' && item) comment = newComment();
    else if ((name === 'wp:postmeta' || name === 'wp:commentmeta' || name === 'wp:termmeta') && (item || term))
      meta = { key: '', value: '' };
    else if (name === 'category' && item) {
      const attrs = tag.attributes as Record<string, string>;
      category = { taxonomy: attrs.domain ?? 'category', slug: attrs.nicename ?? '' };
    }
  };
  parser.ontext = (t) => (text += t);
  parser.oncdata = (t) => (text += t);
  parser.onclosetag = (name) => {
    stack.pop();
    const local = name.startsWith('wp:') ? name.slice(3) : name;
    if (location) {
      if (name === 'wp:nav_menu_location') {
        if (location.location) ready.push({ kind: 'menuLocation', ...location });
        location = null;
      } else if (name === 'wp:location') location.location = text.trim();
      else if (name === 'wp:menu_slug') location.menu = text.trim();
    } else if (meta) {
      if (local === 'meta_key') meta.key = text;
      else if (local === 'meta_value') meta.value = text;
      else if (name === 'wp:postmeta' && item && !comment) {
        item.meta.push(meta);
        meta = null;
      } else if (name === 'wp:commentmeta' && comment) {
        comment.meta.push(meta);
        meta = null;
      } else if (name === 'wp:termmeta' && term) {
        term.meta.push(meta);
        meta = null;
      }
    } else if (comment) {
      if (name === 'wp:comment') {
        item?.comments.push(comment);
        comment = null;
      } else if (name.startsWith('wp:') && COMMENT_FIELDS[local]) assign(comment, COMMENT_FIELDS[local], text);
    } else if (item) {
      if (name === 'item') {
        ready.push({ kind: 'item', item });
        item = null;
      } else if (name === 'category' && category) {
        // WXR 1.0 repeats each category without `domain`/`nicename`; only the ones with a slug are terms.
        if (category.slug) item.terms.push({ ...category, name: text });
        category = null;
      } else if (stack[stack.length - 1] === 'item' && ITEM_FIELDS[name]) assign(item, ITEM_FIELDS[name], text);
    } else if (term) {
      if (name === 'wp:category' || name === 'wp:tag' || name === 'wp:term') {
        ready.push({ kind: 'term', term });
        term = null;
      } else if (TERM_FIELDS[local]) assign(term, TERM_FIELDS[local], text);
    } else if (author) {
      if (name === 'wp:author') {
        ready.push({ kind: 'author', author });
        author = null;
      } else if (AUTHOR_FIELDS[local]) assign(author, AUTHOR_FIELDS[local], text);
    } else if (stack[stack.length - 1] === 'channel') {
      if (name === 'wp:wxr_version') site.version = text.trim();
      else if (name === 'wp:base_site_url') site.baseSiteUrl = text.trim();
      else if (name === 'wp:base_blog_url') site.baseBlogUrl = text.trim();
    }
    text = '';
  };

  let bytes = 0;
  // A utf8 stream decodes characters split across chunks.
  for await (const chunk of createReadStream(file, { encoding: 'utf8' })) {
    bytes += Buffer.byteLength(chunk as string);
    parser.write(chunk as string);
    onBytes?.(bytes);
    yield* ready.splice(0);
  }
  parser.close();
  if (!sawChannel) throw new Error('This is not a WXR file: no <channel> element.');
  flushSite();
  yield* ready.splice(0);
}
