import { plainToInstance } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';

/**
 * The environment of the standalone server, validated at start-up. A bad value stops the server with a message
 * naming the variable and what is allowed.
 */
export class CmsEnvironment {
  /** HTTP port. */
  @IsInt({ message: 'PORT must be an integer between 1 and 65535' })
  @Min(1, { message: 'PORT must be an integer between 1 and 65535' })
  @Max(65535, { message: 'PORT must be an integer between 1 and 65535' })
  PORT = 3000;

  /** Public base URL of the site (links are built from it); default: the address of each request. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'CMS_BASE_URL must be an http(s) URL such as https://example.com' })
  CMS_BASE_URL?: string;

  /** `sqlite:<path>`, `sqlite::memory:` or `mysql://user:pass@host:port/db`. */
  @Matches(/^(sqlite:.+|(mysql|mariadb):\/\/.+)$/, {
    message: 'DATABASE_URL must be sqlite:<path>, sqlite::memory: or mysql://user:pass@host:port/database',
  })
  DATABASE_URL = 'sqlite:./data/cms.sqlite';

  /** Prefix of the WordPress-schema tables (`wp_` for an existing WordPress database). */
  @Matches(/^[A-Za-z0-9_]{0,32}$/, { message: 'CMS_TABLE_PREFIX may contain only letters, digits and _ (at most 32)' })
  CMS_TABLE_PREFIX = 'cms_';

  /** Directory for uploaded media. */
  @IsString()
  CMS_UPLOAD_DIR = './uploads';

  /** Largest request body: bytes, or a number with kb/mb (e.g. `10mb`). */
  @Matches(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, { message: 'CMS_BODY_LIMIT must be a size such as 10mb, 512kb or 1048576' })
  CMS_BODY_LIMIT = '10mb';

  /** Site title written on first start. */
  @IsOptional()
  @IsString()
  CMS_SITE_TITLE?: string;

  /** Run migrations and first-start set-up on start (`true`/`false`). */
  @IsIn(['true', 'false'], { message: 'CMS_MIGRATIONS_RUN must be true or false' })
  CMS_MIGRATIONS_RUN = 'true';
}

/** Parses a size such as `10mb` into bytes. */
export function parseSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(value.trim());
  if (!m) throw new Error(`Invalid size: ${value}`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[unit as 'b'];
  return Math.floor(Number(m[1]) * factor);
}

/** Reads and validates the environment; throws one Error listing every bad variable. */
export function loadEnvironment(source: NodeJS.ProcessEnv = process.env): CmsEnvironment {
  const defined = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const env = plainToInstance(CmsEnvironment, defined, { enableImplicitConversion: false });
  if (typeof defined.PORT === 'string') env.PORT = /^\d+$/.test(defined.PORT) ? Number(defined.PORT) : (NaN as number);
  const errors = validateSync(env, { skipMissingProperties: false });
  if (errors.length) {
    const lines = [...new Set(errors.flatMap((e) => Object.values(e.constraints ?? {})))];
    throw new Error(`Invalid configuration:\n  - ${lines.join('\n  - ')}`);
  }
  return env;
}
