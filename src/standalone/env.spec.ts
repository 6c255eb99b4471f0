import { CmsEnvironment, loadEnvironment, parseSize } from './env';

/** The message of the error `loadEnvironment` throws for `env`, or fails the test when it does not throw. */
function failure(env: NodeJS.ProcessEnv): string {
  try {
    loadEnvironment(env);
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return (error as Error).message;
  }
  throw new Error(`loadEnvironment accepted ${JSON.stringify(env)}`);
}

describe('loadEnvironment', () => {
  describe('defaults', () => {
    it('applies the documented defaults to an empty environment', () => {
      const env = loadEnvironment({});
      expect(env).toBeInstanceOf(CmsEnvironment);
      expect(env.PORT).toBe(3000);
      expect(env.DATABASE_URL).toBe('sqlite:./data/cms.sqlite');
      expect(env.CMS_TABLE_PREFIX).toBe('cms_');
      expect(env.CMS_BODY_LIMIT).toBe('10mb');
      expect(env.CMS_UPLOAD_DIR).toBe('./uploads');
      expect(env.CMS_MIGRATIONS_RUN).toBe('true');
      expect(env.CMS_BASE_URL).toBeUndefined();
      expect(env.CMS_SITE_TITLE).toBeUndefined();
    });

    it('treats empty values as unset', () => {
      const env = loadEnvironment({ PORT: '', DATABASE_URL: '', CMS_TABLE_PREFIX: '', CMS_BASE_URL: '' });
      expect(env.PORT).toBe(3000);
      expect(env.DATABASE_URL).toBe('sqlite:./data/cms.sqlite');
      expect(env.CMS_TABLE_PREFIX).toBe('cms_');
      expect(env.CMS_BASE_URL).toBeUndefined();
    });

    it('reads process.env when no source is given', () => {
      const saved = process.env.PORT;
      process.env.PORT = '4321';
      try {
        expect(loadEnvironment().PORT).toBe(4321);
      } finally {
        if (saved === undefined) delete process.env.PORT;
        else process.env.PORT = saved;
      }
    });
  });

  describe('valid values', () => {
    it('takes every variable and converts PORT to a number', () => {
      const variables = {
        CMS_BASE_URL: 'https://example.com/blog',
        DATABASE_URL: 'mysql://user:pass@db:3306/wordpress',
        CMS_TABLE_PREFIX: 'wp_',
        CMS_UPLOAD_DIR: '/var/uploads',
        CMS_BODY_LIMIT: '512kb',
        CMS_SITE_TITLE: 'My Site',
        CMS_MIGRATIONS_RUN: 'false',
      };
      const env = loadEnvironment({ PORT: '8080', ...variables });
      expect(env).toMatchObject({ PORT: 8080, ...variables });
    });

    const urls = ['sqlite::memory:', 'sqlite:/tmp/x.sqlite', 'mariadb://root@127.0.0.1/wp'];

    it.each(urls)('accepts DATABASE_URL %s', (url) => {
      expect(loadEnvironment({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
    });

    it('accepts the port limits 1 and 65535', () => {
      expect(loadEnvironment({ PORT: '1' }).PORT).toBe(1);
      expect(loadEnvironment({ PORT: '65535' }).PORT).toBe(65535);
    });

    it('accepts http and https base URLs', () => {
      expect(loadEnvironment({ CMS_BASE_URL: 'http://localhost:3000' }).CMS_BASE_URL).toBe('http://localhost:3000');
    });
  });

  describe('operations', () => {
    it('defaults to info logs, a 10 s shutdown and compression above 1 KiB', () => {
      const env = loadEnvironment({});
      expect([env.LOG_LEVEL, env.CMS_SHUTDOWN_TIMEOUT, env.CMS_COMPRESSION, env.CMS_COMPRESSION_THRESHOLD]).toEqual([
        'info',
        10,
        'on',
        '1kb',
      ]);
    });

    it('takes a level, a timeout in seconds and the compression settings', () => {
      const env = loadEnvironment({
        LOG_LEVEL: 'debug',
        CMS_SHUTDOWN_TIMEOUT: '30',
        CMS_COMPRESSION: 'off',
        CMS_COMPRESSION_THRESHOLD: '4kb',
      });
      expect([
        env.LOG_LEVEL,
        env.CMS_SHUTDOWN_TIMEOUT,
        env.CMS_COMPRESSION,
        parseSize(env.CMS_COMPRESSION_THRESHOLD),
      ]).toEqual(['debug', 30, 'off', 4096]);
      expect(failure({ LOG_LEVEL: 'loud' })).toContain(
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      );
    });
  });

  describe('server limits', () => {
    it.each<[string, NodeJS.ProcessEnv, number[]]>([
      [
        "defaults to Node's timeouts (300 s a request, 60 s its head, 5 s an idle connection) and a 16 KiB head",
        {},
        [300, 60, 5, 16384],
      ],
      [
        'takes seconds and a size, and 0 for no request timeout',
        {
          CMS_REQUEST_TIMEOUT: '0',
          CMS_HEADERS_TIMEOUT: '20',
          CMS_KEEPALIVE_TIMEOUT: '65',
          CMS_MAX_HEADER_SIZE: '32kb',
        },
        [0, 20, 65, 32768],
      ],
    ])('%s', (_title, source, limits) => {
      const env = loadEnvironment(source);
      expect([
        env.CMS_REQUEST_TIMEOUT,
        env.CMS_HEADERS_TIMEOUT,
        env.CMS_KEEPALIVE_TIMEOUT,
        parseSize(env.CMS_MAX_HEADER_SIZE),
      ]).toEqual(limits);
    });

    it('paces requests in slices of 5 ms by default, takes milliseconds, and 0 for no pacing', () => {
      expect(loadEnvironment({}).CMS_EVENT_LOOP_SLICE).toBe(5);
      expect(loadEnvironment({ CMS_EVENT_LOOP_SLICE: '20' }).CMS_EVENT_LOOP_SLICE).toBe(20);
      expect(loadEnvironment({ CMS_EVENT_LOOP_SLICE: '0' }).CMS_EVENT_LOOP_SLICE).toBe(0);
    });

    it('refuses a head timeout longer than the request timeout', () => {
      expect(failure({ CMS_REQUEST_TIMEOUT: '30', CMS_HEADERS_TIMEOUT: '60' })).toContain(
        'CMS_HEADERS_TIMEOUT must not be longer than CMS_REQUEST_TIMEOUT',
      );
      expect(loadEnvironment({ CMS_REQUEST_TIMEOUT: '30', CMS_HEADERS_TIMEOUT: '30' }).CMS_HEADERS_TIMEOUT).toBe(30);
    });
  });

  describe('database timeout', () => {
    it('waits 10 s for the database by default and takes another number of seconds', () => {
      expect(loadEnvironment({}).CMS_DB_TIMEOUT).toBe(10);
      expect(loadEnvironment({ CMS_DB_TIMEOUT: '3' }).CMS_DB_TIMEOUT).toBe(3);
    });

    it.each(['0', '10s', '601', '-2'])('rejects CMS_DB_TIMEOUT=%s, saying what is allowed', (value) => {
      expect(failure({ CMS_DB_TIMEOUT: value })).toContain(
        'CMS_DB_TIMEOUT must be a number of seconds (an integer between 1 and 600)',
      );
    });
  });

  describe('bad values', () => {
    it.each([
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['PORT', '0'],
      ['PORT', '80.5'],
      ['PORT', '-1'],
      ['DATABASE_URL', 'postgres://x'],
      ['DATABASE_URL', 'sqlite:'],
      ['CMS_TABLE_PREFIX', 'wp-'],
      ['CMS_TABLE_PREFIX', 'x'.repeat(33)],
      ['CMS_BASE_URL', 'ftp://x'],
      ['CMS_BASE_URL', 'example.com'],
      ['CMS_BODY_LIMIT', 'lots'],
      ['CMS_BODY_LIMIT', '10tb'],
      ['CMS_MIGRATIONS_RUN', 'maybe'],
      ['CMS_MIGRATIONS_RUN', 'yes'],
      ['CMS_MEMOS', 'true'],
      ['CMS_STAMP_TRIGGERS', 'on'],
      ['LOG_LEVEL', 'verbose'],
      ['LOG_LEVEL', 'INFO'],
      ['CMS_SHUTDOWN_TIMEOUT', '5s'],
      ['CMS_SHUTDOWN_TIMEOUT', '-1'],
      ['CMS_SHUTDOWN_TIMEOUT', '3601'],
      ['CMS_COMPRESSION', 'gzip'],
      ['CMS_REQUEST_LOG', 'yes'],
      ['CMS_COMPRESSION_THRESHOLD', 'small'],
      ['CMS_REQUEST_TIMEOUT', '5s'],
      ['CMS_REQUEST_TIMEOUT', '-1'],
      ['CMS_HEADERS_TIMEOUT', '0'],
      ['CMS_KEEPALIVE_TIMEOUT', '0'],
      ['CMS_KEEPALIVE_TIMEOUT', '1.5'],
      ['CMS_MAX_HEADER_SIZE', 'big'],
      ['CMS_EVENT_LOOP_SLICE', '-1'],
      ['CMS_EVENT_LOOP_SLICE', '2.5'],
      ['CMS_EVENT_LOOP_SLICE', '1001'],
    ])('rejects %s=%s with an error naming the variable', (name, value) => {
      const message = failure({ [name]: value });
      expect(message).toContain(name);
    });

    it('says what is allowed', () => {
      expect(failure({ PORT: 'abc' })).toContain('PORT must be an integer between 1 and 65535');
      expect(failure({ CMS_BODY_LIMIT: 'lots' })).toContain(
        'CMS_BODY_LIMIT must be a size such as 10mb, 512kb or 1048576',
      );
      expect(failure({ CMS_MIGRATIONS_RUN: 'maybe' })).toContain('CMS_MIGRATIONS_RUN must be true or false');
    });

    it('does not name the variables that are fine', () => {
      const message = failure({ PORT: '70000', DATABASE_URL: 'sqlite::memory:' });
      expect(message).not.toContain('DATABASE_URL');
    });

    it('reports several bad values together in one message', () => {
      const message = failure({
        PORT: 'abc',
        DATABASE_URL: 'postgres://x',
        CMS_TABLE_PREFIX: 'wp-',
        CMS_BASE_URL: 'ftp://x',
        CMS_BODY_LIMIT: 'lots',
        CMS_MIGRATIONS_RUN: 'maybe',
      });
      for (const name of ['PORT', 'DATABASE_URL', 'CMS_TABLE_PREFIX', 'CMS_BASE_URL', 'CMS_BODY_LIMIT']) {
        expect(message).toContain(name);
      }
      expect(message).toContain('CMS_MIGRATIONS_RUN');
      expect(message.startsWith('Invalid configuration:')).toBe(true);
    });

    it('lists each bad variable once, one per line', () => {
      const message = failure({ PORT: 'abc', CMS_BODY_LIMIT: 'lots' });
      const lines = message.split('\n').slice(1);
      expect(lines).toEqual([
        '  - PORT must be an integer between 1 and 65535',
        '  - CMS_BODY_LIMIT must be a size such as 10mb, 512kb or 1048576',
      ]);
    });
  });
});

describe('parseSize', () => {
  it.each([
    ['10mb', 10485760],
    ['512kb', 524288],
    ['1048576', 1048576],
    ['100b', 100],
    ['1gb', 1073741824],
    ['10MB', 10485760],
    ['1.5kb', 1536],
    [' 2 mb ', 2097152],
  ])('parses %p as %p bytes', (input, bytes) => {
    expect(parseSize(input)).toBe(bytes);
  });

  it('rounds fractional bytes down', () => {
    expect(parseSize('0.5b')).toBe(0);
    expect(parseSize('1.0001kb')).toBe(1024);
  });

  it.each(['lots', '', 'mb', '10 tb', '-1kb', '1e3'])('throws for %p', (input) => {
    expect(() => parseSize(input)).toThrow(`Invalid size: ${input}`);
  });
});

describe('CMS_WIRE_NAMES', () => {
  it('defaults to the spec names and takes wordpress', () => {
    expect(loadEnvironment({}).CMS_WIRE_NAMES).toBe('cms');
    expect(loadEnvironment({ CMS_WIRE_NAMES: 'wordpress' }).CMS_WIRE_NAMES).toBe('wordpress');
  });

  it('refuses anything else, saying what is allowed', () => {
    expect(failure({ CMS_WIRE_NAMES: 'wp' })).toContain('CMS_WIRE_NAMES must be cms or wordpress');
  });
});
