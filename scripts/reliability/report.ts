import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The report every reliability script writes its figures into (`docs/reliability.md`). */
export const RELIABILITY_REPORT = join(__dirname, '..', '..', 'docs', 'reliability.md');

/** The sections of the report, in order: each written by one script, between its markers. */
export const SECTIONS = [
  'matrix',
  'fuzz',
  'sqlmap',
  'chaos',
  'outage',
  'writers',
  'load',
  'load-mysql',
  'limits',
] as const;
export type Section = (typeof SECTIONS)[number];

const begin = (name: Section) => `<!-- begin:${name} -->`;
const end = (name: Section) => `<!-- end:${name} -->`;

/**
 * Replaces one section of the report with `markdown` (the figures of a run, written by the script that measured
 * them), leaving the others as they are. A section missing from the file is added in its place in {@link SECTIONS}.
 */
export function writeSection(name: Section, markdown: string, file = RELIABILITY_REPORT): void {
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const body = `${begin(name)}\n${markdown.trim()}\n${end(name)}`;
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from >= 0 && to > from) {
    text = text.slice(0, from) + body + text.slice(to + end(name).length);
  } else {
    // After the last section that comes before it, or at the end.
    const before = SECTIONS.slice(0, SECTIONS.indexOf(name))
      .reverse()
      .find((s) => text.includes(end(s)));
    const at = before ? text.indexOf(end(before)) + end(before).length : text.length;
    text = `${text.slice(0, at)}\n\n${body}\n${text.slice(at)}`;
  }
  writeFileSync(file, text.replace(/\n{3,}/g, '\n\n'));
}
