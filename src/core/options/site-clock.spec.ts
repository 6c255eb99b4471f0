import { cacheUsage } from '../memory/byte-lru';
import { TIME_ZONE_FORMATTERS } from '../memory/cache-limits';
import { SiteClock } from './site-clock';

describe('SiteClock', () => {
  it('is UTC without a time zone or offset', () => {
    const clock = SiteClock.fromOptions({ timezone_string: '', gmt_offset: '0' });
    expect(clock.isUtc).toBe(true);
    expect(clock.gmtFromLocal('2024-05-06 07:08:09')).toBe('2024-05-06 07:08:09');
  });

  it('applies a fixed gmt_offset, fractional hours included', () => {
    const clock = SiteClock.fromOptions({ timezone_string: '', gmt_offset: 5.5 });
    expect(clock.gmtFromLocal('2024-01-01 05:30:00')).toBe('2024-01-01 00:00:00');
    expect(clock.localFromGmt('2023-12-31 23:00:00')).toBe('2024-01-01 04:30:00');
  });

  it('follows daylight saving time of an IANA zone', () => {
    const paris = SiteClock.fromOptions({ timezone_string: 'Europe/Paris', gmt_offset: 0 });
    expect(paris.gmtFromLocal('2024-01-15 12:00:00')).toBe('2024-01-15 11:00:00');
    expect(paris.gmtFromLocal('2024-07-15 12:00:00')).toBe('2024-07-15 10:00:00');
    expect(paris.localFromGmt('2024-07-15 10:00:00')).toBe('2024-07-15 12:00:00');
  });

  it('prefers timezone_string over gmt_offset and ignores unknown zones', () => {
    expect(
      SiteClock.fromOptions({ timezone_string: 'America/New_York', gmt_offset: 3 }).gmtFromLocal('2024-01-15 12:00:00'),
    ).toBe('2024-01-15 17:00:00');
    expect(
      SiteClock.fromOptions({ timezone_string: 'Mars/Olympus', gmt_offset: -2 }).gmtFromLocal('2024-01-15 12:00:00'),
    ).toBe('2024-01-15 14:00:00');
  });

  describe('restDateWithGmt (rest_get_date_with_gmt)', () => {
    const clock = SiteClock.fromOptions({ timezone_string: '', gmt_offset: -10 });

    it('reads a date without an offset as site time', () => {
      expect(clock.restDateWithGmt('2010-01-01T02:00:00')).toEqual(['2010-01-01 02:00:00', '2010-01-01 12:00:00']);
    });

    it('reads a date with an offset or Z as that instant', () => {
      expect(clock.restDateWithGmt('2010-01-01T02:00:00Z')).toEqual(['2009-12-31 16:00:00', '2010-01-01 02:00:00']);
      expect(clock.restDateWithGmt('2010-01-01T02:00:00+02:00')).toEqual([
        '2009-12-31 14:00:00',
        '2010-01-01 00:00:00',
      ]);
    });

    it('reads a GMT date without offset as UTC', () => {
      expect(clock.restDateWithGmt('2010-01-01T02:00:00', true)).toEqual([
        '2009-12-31 16:00:00',
        '2010-01-01 02:00:00',
      ]);
    });

    it('refuses what is not a date', () => {
      expect(clock.restDateWithGmt('2010-60-01T02:00:00')).toBeNull();
      expect(clock.restDateWithGmt('2010-02-30T02:00:00')).toBeNull();
      expect(clock.restDateWithGmt('yesterday')).toBeNull();
    });
  });

  it('computes a GMT value from the local one when the GMT column is zero', () => {
    const clock = SiteClock.fromOptions({ gmt_offset: 2 });
    expect(clock.gmtOf('2024-03-01 10:00:00', '0000-00-00 00:00:00')).toBe('2024-03-01 08:00:00');
    expect(clock.gmtOf('2024-03-01 10:00:00', '2024-03-01 09:00:00')).toBe('2024-03-01 09:00:00');
  });

  it('keeps at most TIME_ZONE_FORMATTERS.entries formatters, whatever the spellings of zone names it is given', () => {
    // ICU takes a zone name in any case: each spelling is a name of its own.
    const spellings = Array.from({ length: 200 }, (_, i) =>
      [...'europe/paris'].map((c, j) => ((i >> j) & 1 ? c.toUpperCase() : c)).join(''),
    );
    for (const name of new Set(spellings)) {
      const clock = SiteClock.fromOptions({ timezone_string: name, gmt_offset: 0 });
      expect(clock.gmtFromLocal('2024-07-15 12:00:00')).toBe('2024-07-15 10:00:00');
    }
    const formatters = cacheUsage().find((c) => c.name === 'time-zone-formatters')!;
    expect(formatters.entries).toBe(TIME_ZONE_FORMATTERS.entries);
    expect(formatters.bytes).toBeLessThanOrEqual(TIME_ZONE_FORMATTERS.bytes);
  });
});
