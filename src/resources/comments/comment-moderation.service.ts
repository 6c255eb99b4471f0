import { Injectable } from '@nestjs/common';
import { formatMysqlDate } from '../../core/database/mysql-date';
import { RestException } from '../../core/errors/rest.exception';
import { sanitizeSavedName, sanitizeSavedUrl } from '../../core/formatting/esc-url';
import { stripAllTags } from '../../core/formatting/excerpt';
import { isEmail } from '../../core/formatting/is-email';
import { wpFilterKses } from '../../core/formatting/kses';
import { textOf } from '../../core/formatting/php-serialize';
import { wpRelUgc } from '../../core/formatting/rel-ugc';
import { sanitizeTextField } from '../../core/formatting/sanitize-text';
import { OptionsService } from '../../core/options/options.service';
import { RestRequest } from '../../core/rest/rest-request';
import { CommentFields, CommentsService } from './comments.service';

/** WordPress's `sanitize_email()`, reduced to what reaches the database: a valid address, trimmed, or `''`. */
function sanitizeEmail(value: string): string {
  const email = value.trim();
  return email && isEmail(email) ? email : '';
}

/** The column lengths `wp_check_comment_data_max_lengths()` enforces. */
const MAX_LENGTHS: Array<[keyof CommentFields, number, string]> = [
  ['author', 245, 'comment_author_column_length'],
  ['authorEmail', 100, 'comment_author_email_column_length'],
  ['authorUrl', 200, 'comment_author_url_column_length'],
  ['content', 65525, 'comment_content_column_length'],
];

/**
 * WordPress's rules for a new or edited comment (`wp_allow_comment()`, `check_comment()`, the disallowed list,
 * `wp_filter_comment()`, the column lengths), by the site's discussion settings.
 */
@Injectable()
export class CommentModeration {
  constructor(
    private readonly comments: CommentsService,
    private readonly options: OptionsService,
  ) {}

  /**
   * `wp_filter_comment()`: names through sanitize_text_field, kses and `_wp_specialchars`; e-mail and URL through
   * their save filters; content through kses for callers without `unfiltered_html`, then `wp_rel_ugc` for everyone;
   * the user agent cut to 254.
   */
  async filter<T extends Partial<CommentFields>>(c: T, req: RestRequest): Promise<T> {
    const out = { ...c };
    if (out.author !== undefined) out.author = sanitizeSavedName(sanitizeTextField(out.author));
    if (out.authorEmail !== undefined) out.authorEmail = wpFilterKses(sanitizeEmail(out.authorEmail));
    if (out.authorUrl !== undefined) out.authorUrl = sanitizeSavedUrl(out.authorUrl);
    if (out.agent !== undefined) out.agent = out.agent.slice(0, 254);
    if (out.content !== undefined) {
      if (!(await req.ctx.can('unfiltered_html'))) out.content = wpFilterKses(out.content);
      out.content = wpRelUgc(out.content, String((await this.options.get('home', req.ctx.baseUrl)) ?? req.ctx.baseUrl));
    }
    return out;
  }

  /**
   * `wp_allow_comment()`: a duplicate is refused (409), a flood too (400); the post's author and moderators are
   * approved; anyone else's comment passes `check_comment()` (manual moderation, links, moderation keys, earlier
   * approval) or is held, and one matching the disallowed keys goes to the trash.
   */
  async allow(c: CommentFields, req: RestRequest, moderator: boolean): Promise<string> {
    if (await this.comments.duplicateOf(c)) {
      throw new RestException(
        'comment_duplicate',
        'Duplicate comment detected; it looks as though you&#8217;ve already said that!',
        409,
      );
    }
    if (!moderator && !(await req.ctx.can('manage_options'))) {
      const hourAgo = formatMysqlDate(new Date(Date.now() - 3_600_000));
      const by = req.ctx.isLoggedIn ? { userId: req.ctx.user.id } : { ip: c.authorIp };
      const last = await this.comments.lastCommentSince(by, hourAgo);
      if (last) {
        const seconds =
          (Date.parse(`${c.dateGmt.replace(' ', 'T')}Z`) - Date.parse(`${last.replace(' ', 'T')}Z`)) / 1000;
        if (seconds < 15)
          throw new RestException('comment_flood', 'You are posting comments too quickly. Slow down.', 400);
      }
    }
    if (c.userId && (moderator || c.userId === (c.postId ? await this.comments.postAuthor(c.postId) : -1))) return '1';
    let approved = (await this.check(c)) ? '1' : '0';
    if (await this.disallowed(c)) approved = 'trash';
    return approved;
  }

  /** `check_comment()`. */
  private async check(c: CommentFields): Promise<boolean> {
    const o = await this.options.getMany([
      'comment_moderation',
      'comment_max_links',
      'moderation_keys',
      'comment_previously_approved',
    ]);
    if (truthyOption(o.comment_moderation)) return false;
    const maxLinks = Number(o.comment_max_links ?? 0);
    if (maxLinks && (c.content.match(/<a [^>]*href/gi)?.length ?? 0) >= maxLinks) return false;
    const modKeys = textOf(o.moderation_keys).trim();
    if (modKeys && matchesWords(modKeys, [c.author, c.authorEmail, c.authorUrl, c.content, c.authorIp, c.agent]))
      return false;
    if (truthyOption(o.comment_previously_approved)) {
      if (c.author === '' || c.authorEmail === '') return false;
      const userId = await this.comments.userIdByEmail(c.authorEmail);
      const ok = await this.comments.hasApproved(userId ? { userId } : { name: c.author, email: c.authorEmail });
      return ok && (!modKeys || !c.authorEmail.includes(modKeys));
    }
    return true;
  }

  /** `wp_check_comment_disallowed_list()`. */
  private async disallowed(c: CommentFields): Promise<boolean> {
    const keys = String((await this.options.get('disallowed_keys', '')) ?? '').trim();
    if (!keys) return false;
    return matchesWords(keys, [
      c.author,
      c.authorEmail,
      c.authorUrl,
      c.content,
      stripAllTags(c.content),
      c.authorIp,
      c.agent,
    ]);
  }
}

/** An option that is on (`1`, `'1'`, `true`). */
export function truthyOption(value: unknown): boolean {
  return value === true || Number(value) > 0 || value === 'true';
}

/** Whether any of the words (one per line) occurs in any of the texts, case-insensitively. */
function matchesWords(list: string, texts: string[]): boolean {
  for (const line of list.split('\n')) {
    const word = line.trim().toLowerCase();
    if (!word) continue;
    if (texts.some((t) => t.toLowerCase().includes(word))) return true;
  }
  return false;
}

/** `wp_check_comment_data_max_lengths()`: lengths in bytes (`mb_strlen( …, '8bit' )`). */
export function checkLengths(c: Partial<CommentFields>): void {
  for (const [field, max, code] of MAX_LENGTHS) {
    const value = c[field];
    if (typeof value === 'string' && Buffer.byteLength(value) > max)
      throw new RestException(code, 'Comment field exceeds maximum length allowed.', 400);
  }
}
