import { ByteLru, LruEntry } from '../memory/byte-lru';
import { TIME_ZONE_FORMATTERS } from '../memory/cache-limits';
import { formatMysqlDate, isZeroDate, ZERO_DATE } from '../database/mysql-date';

/**
 * The site's time zone as WordPress keeps it: an IANA name in `timezone_string`, or else a fixed offset in hours
 * in `gmt_offset` (`5.5` = UTC+05:30). Local dates (`post_date`) are wall-clock times in this zone; `*_gmt`
 * columns are UTC.
 */
export class SiteClock {
  private constructor(
    readonly timezoneString: string,
    readonly gmtOffsetHours: number,
  ) {}

  static UTC = new SiteClock('', 0);

  /** From the `timezone_string` and `gmt_offset` options (`wp_timezone()`). */
  static fromOptions(options: Record<string, unknown>): SiteClock {
    const name = typeof options.timezone_string === 'string' ? options.timezone_string.trim() : '';
    const offset = Number(options.gmt_offset ?? 0);
    if (name && isKnownZone(name)) return name === 'UTC' ? SiteClock.UTC : new SiteClock(name, 0);
    return Number.isFinite(offset) && offset !== 0 ? new SiteClock('', offset) : SiteClock.UTC;
  }

  get isUtc(): boolean {
    return !this.timezoneString && this.gmtOffsetHours === 0;
  }

  /** Offset of local time from UTC in milliseconds at the instant `utcMs`. */
  offsetAt(utcMs: number): number {
    if (!this.timezoneString) return Math.round(this.gmtOffsetHours * 3600) * 1000;
    const parts = formatter(this.timezoneString).formatToParts(new Date(utcMs));
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
    return asUtc - Math.floor(utcMs / 1000) * 1000;
  }

  /** `get_gmt_from_date()`: a local MySQL datetime as UTC. */
  gmtFromLocal(local: string): string {
    if (this.isUtc) return local;
    const wall = parseMysql(local);
    if (wall === null) return ZERO_DATE;
    // The offset in force at that wall-clock time (two passes settle it around DST changes).
    let utc = wall - this.offsetAt(wall);
    utc = wall - this.offsetAt(utc);
    return formatMysqlDate(new Date(utc));
  }

  /** `get_date_from_gmt()`: a UTC MySQL datetime as local time. */
  localFromGmt(gmt: string): string {
    if (this.isUtc) return gmt;
    const utc = parseMysql(gmt);
    if (utc === null) return ZERO_DATE;
    return formatMysqlDate(new Date(utc + this.offsetAt(utc)));
  }

  /** `current_time('mysql')` and `current_time('mysql', true)`. */
  now(at = Date.now()): { local: string; gmt: string } {
    const gmt = formatMysqlDate(new Date(at));
    return { local: this.localFromGmt(gmt), gmt };
  }

  /** The GMT value of a stored date pair, computed from the local one when the GMT column is zero. */
  gmtOf(local: string, gmt: string): string {
    return isZeroDate(gmt) ? (isZeroDate(local) ? ZERO_DATE : this.gmtFromLocal(local)) : gmt;
  }

  /**
   * `rest_get_date_with_gmt()`: an RFC 3339 request date as `[local, gmt]` MySQL datetimes. A date without an offset
   * is site-local time (or UTC when `isUtc`, for `date_gmt`); with an offset it is that instant. `null` when invalid.
   */
  restDateWithGmt(value: string, isUtc = false): [string, string] | null {
    const match = REST_DATE.exec(value);
    if (!match) return null;
    const hasOffset = Boolean(match[2]);
    const wall = parseMysql(match[1].replace(/[Tt]/, ' '));
    if (wall === null) return null;
    if (!isUtc && !hasOffset) {
      const local = formatMysqlDate(new Date(wall));
      return [local, this.gmtFromLocal(local)];
    }
    const offset = hasOffset && match[2].toUpperCase() !== 'Z' ? offsetMs(match[2]) : 0;
    const gmt = formatMysqlDate(new Date(wall - offset));
    return [this.localFromGmt(gmt), gmt];
  }
}

/** `rest_parse_date()`'s pattern: date, time, optional fraction, optional `Z` or offset. */
const REST_DATE = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

function offsetMs(text: string): number {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return (m[1] === '-' ? -1 : 1) * minutes * 60_000;
}

/** A MySQL datetime read as if it were UTC (milliseconds), `null` when invalid or zero. */
function parseMysql(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(value);
  if (!m || isZeroDate(value)) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Reject dates that roll over (e.g. February 30th), as PHP's checkdate() would.
  return new Date(ms).getUTCDate() === d ? ms : null;
}

/** Approximate bytes of a time-zone formatter (ICU's objects behind it). */
const FORMATTER_BYTES = 16 * 1024;

/** A formatter kept for its time-zone name. */
class HeldFormatter implements LruEntry {
  used = 0;
  size = FORMATTER_BYTES;

  constructor(
    readonly zone: string,
    readonly format: Intl.DateTimeFormat,
  ) {}

  evicted(): void {
    if (FORMATTERS.get(this.zone) === this) FORMATTERS.delete(this.zone);
  }
}

/** Formatters by time-zone name (any spelling ICU takes), the least recently used dropped past TIME_ZONE_FORMATTERS. */
const FORMATTERS = new Map<string, HeldFormatter>();
const FORMATTERS_BUDGET = new ByteLru<HeldFormatter>(
  'time-zone-formatters',
  TIME_ZONE_FORMATTERS.bytes,
  TIME_ZONE_FORMATTERS.entries,
  FORMATTER_BYTES,
);

function formatter(zone: string): Intl.DateTimeFormat {
  const held = FORMATTERS.get(zone);
  if (held) {
    FORMATTERS_BUDGET.touch(held);
    return held.format;
  }
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const entry = new HeldFormatter(zone, format);
  if (FORMATTERS_BUDGET.admit(entry)) FORMATTERS.set(zone, entry);
  return format;
}

function isKnownZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}
