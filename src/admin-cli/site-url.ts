import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../core/database/cms-data-source';
import { textOf } from '../core/formatting/php-serialize';
import { OptionsService } from '../core/options/options.service';
import type { CliOutput } from './admin-commands';
import { CliError } from './command-line';
import { describeReports, searchReplace, SearchReplaceOptions } from './search-replace';

/** Longest site address accepted (`home` and `siteurl` are options: text, but links repeat them). */
const URL_MAX_CHARS = 2048;

/**
 * A site address as WordPress stores it in `home` and `siteurl`: an absolute http(s) URL, with a path or not, without
 * credentials, query or fragment, and without a trailing slash. Throws a {@link CliError} saying what is wrong.
 */
export function normalizeSiteUrl(input: string): string {
  const text = input.trim();
  let url: URL;
  try {
    if (text.length > URL_MAX_CHARS) throw new Error('too long');
    url = new URL(text);
  } catch {
    throw new CliError(`Invalid site address "${text.slice(0, 200)}": an http(s) URL such as https://example.com.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`Invalid site address "${text}": the scheme must be http or https.`);
  if (url.username || url.password) throw new CliError(`Invalid site address "${text}": no user name or password.`);
  if (url.search || url.hash || text.includes('?') || text.includes('#'))
    throw new CliError(`Invalid site address "${text}": no query string or fragment.`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The stored `home` and `siteurl` options ('' when missing). */
export async function storedSiteUrls(options: OptionsService): Promise<{ home: string; siteurl: string }> {
  const o = await options.getMany(['home', 'siteurl']);
  return { home: textOf(o.home ?? ''), siteurl: textOf(o.siteurl ?? '') };
}

/** `site-url get`: prints `home` and `siteurl`. */
export async function runSiteUrlGet(app: INestApplicationContext, output: CliOutput): Promise<void> {
  const { home, siteurl } = await storedSiteUrls(app.get(OptionsService, { strict: false }));
  output.out(`home: ${home || '(not set)'}\nsiteurl: ${siteurl || '(not set)'}\n`);
}

/**
 * `site-url set <url> [--search-replace] [--dry-run]`: stores the address as `home` and `siteurl` and prints each
 * change (`old → new`). With `--search-replace`, the old addresses are then replaced by the new one in content and
 * meta (see `search-replace`), e.g. the posts' GUIDs and the links in their text; `--dry-run` only says what would
 * change, options included.
 */
export async function runSiteUrlSet(
  app: INestApplicationContext,
  input: string,
  flags: { searchReplace: boolean; dryRun: boolean; tables?: SearchReplaceOptions['tables'] },
  output: CliOutput,
): Promise<void> {
  const url = normalizeSiteUrl(input);
  const options = app.get(OptionsService, { strict: false });
  const before = await storedSiteUrls(options);
  const prefix = flags.dryRun ? 'Would set' : 'Set';
  for (const name of ['home', 'siteurl'] as const) {
    const old = before[name].replace(/\/+$/, '');
    if (old === url) {
      output.out(`${name}: ${url} (unchanged)\n`);
      continue;
    }
    if (!flags.dryRun) await options.set(name, url);
    output.out(`${prefix} ${name}: ${old || '(not set)'} → ${url}\n`);
  }
  if (!flags.searchReplace) {
    const olds = [...new Set([before.home, before.siteurl].map((u) => u.replace(/\/+$/, '')))].filter(
      (u) => u && u !== url,
    );
    if (olds.length)
      output.out(
        `Links are now written with ${url}. Stored content still holds the old address (GUIDs, links in text): ` +
          `run "npm run cms -- search-replace ${olds[0]} ${url} --dry-run" to see where.\n`,
      );
    return;
  }
  const dataSource = app.get<DataSource>(CMS_DATA_SOURCE, { strict: false });
  // The old addresses, the longer first (a `siteurl` with a path contains its `home`).
  const olds = [...new Set([before.siteurl, before.home].map((u) => u.replace(/\/+$/, '')))]
    .filter((u) => u && u !== url)
    .sort((a, b) => b.length - a.length);
  for (const old of olds) {
    output.out(`Replacing ${old} with ${url}${flags.dryRun ? ' (dry run)' : ''}:\n`);
    const reports = await searchReplace(dataSource, old, url, { dryRun: flags.dryRun, tables: flags.tables });
    output.out(describeReports(reports, flags.dryRun));
  }
}
