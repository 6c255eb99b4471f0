/**
 * Helpers for WordPress's `datetime` columns, which the entities keep as `'YYYY-MM-DD HH:MM:SS'` strings.
 */

/** WordPress's "no date" value (e.g. `post_date_gmt` of a draft). */
export const ZERO_DATE = '0000-00-00 00:00:00';

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/**
 * Formats a JS Date in UTC as a MySQL datetime string, like `gmdate('Y-m-d H:i:s')`.
 *
 * @example formatMysqlDate(new Date('2024-05-06T07:08:09.999Z')) // '2024-05-06 07:08:09'
 */
export function formatMysqlDate(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('formatMysqlDate: invalid Date');
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

/** Whether a datetime string is empty or WordPress's zero date (`0000-00-00 ...`). */
export function isZeroDate(value: string | null | undefined): boolean {
  return !value || value.startsWith('0000-00-00');
}

const MYSQL_DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/**
 * WordPress `mysql_to_rfc3339()`: `'2024-05-06 07:08:09'` → `'2024-05-06T07:08:09'` (no time zone), or `null`
 * for an empty value, the zero date, or a string that is not a datetime.
 */
export function mysqlToRfc3339(value: string | null | undefined): string | null {
  if (isZeroDate(value)) return null;
  const match = MYSQL_DATETIME.exec(value as string);
  if (!match) return null;
  const [, year, month, day, hours = '00', minutes = '00', seconds = '00'] = match;
  return `${year}-${month}-${day}T${hours}:${minutes}:${seconds}`;
}
