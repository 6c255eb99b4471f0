import bcrypt from 'bcryptjs';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function encode64(input: Buffer, count: number): string {
  let output = '';
  let i = 0;
  do {
    let value = input[i++];
    output += ITOA64[value & 0x3f];
    if (i < count) value |= input[i] << 8;
    output += ITOA64[(value >> 6) & 0x3f];
    if (i++ >= count) break;
    if (i < count) value |= input[i] << 16;
    output += ITOA64[(value >> 12) & 0x3f];
    if (i++ >= count) break;
    output += ITOA64[(value >> 18) & 0x3f];
  } while (i < count);
  return output;
}

/** The phpass "portable" hash (`$P$`/`$H$`) of a password for a stored setting, or `null` if malformed. */
function phpassCrypt(password: string, setting: string): string | null {
  const countLog2 = ITOA64.indexOf(setting[3]);
  if (countLog2 < 7 || countLog2 > 30) return null;
  const salt = setting.slice(4, 12);
  if (salt.length !== 8) return null;
  const pass = Buffer.from(password, 'utf8');
  let hash = createHash('md5')
    .update(Buffer.concat([Buffer.from(salt, 'binary'), pass]))
    .digest();
  for (let count = 1 << countLog2; count > 0; count--) {
    hash = createHash('md5')
      .update(Buffer.concat([hash, pass]))
      .digest();
  }
  return setting.slice(0, 12) + encode64(hash, 16);
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** WordPress 6.8+ pre-hashes with HMAC-SHA384 before bcrypt (`$wp$2y$...`). */
function wpPrehash(password: string): string {
  return createHmac('sha384', 'wp-sha384').update(password.trim()).digest('base64');
}

/**
 * The longest password checked or hashed, in bytes, as phpass bounds it (`CheckPassword` and `HashPassword` refuse
 * longer ones): a phpass check hashes the password 8,192 times, so its cost grows with its length (a 1 MB password
 * took a minute).
 */
export const MAX_PASSWORD_BYTES = 4096;

/**
 * Checks a password against a hash stored by WordPress: phpass portable (`$P$`), WordPress's bcrypt (`$wp$2y$`),
 * plain bcrypt (`$2y$`) and the legacy bare MD5.
 */
export function verifyWordPressPassword(password: string, stored: string): boolean {
  if (!stored || Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return false;
  if (stored.startsWith('$wp$')) return bcryptCompare(wpPrehash(password), stored.slice(3));
  if (/^\$2[aby]\$/.test(stored)) return bcryptCompare(password, stored);
  if (stored.startsWith('$P$') || stored.startsWith('$H$')) {
    const computed = phpassCrypt(password, stored);
    return computed !== null && safeEqual(computed, stored);
  }
  if (stored.length <= 32) return safeEqual(createHash('md5').update(password).digest('hex'), stored);
  return false;
}

/** bcrypt check of a `$2a$`/`$2b$`/`$2y$` hash; a malformed one (bad cost or salt) is `false`, not an exception. */
function bcryptCompare(password: string, stored: string): boolean {
  try {
    return bcrypt.compareSync(password, stored.replace(/^\$2y\$/, '$2b$'));
  } catch {
    return false;
  }
}

/** Hashes a password the way current WordPress does (`$wp$2y$10$...`). */
export function hashWordPressPassword(password: string): string {
  return '$wp' + bcrypt.hashSync(wpPrehash(password), 10).replace(/^\$2b\$/, '$2y$');
}

/** How new login passwords are hashed: WordPress 6.8's bcrypt (`$wp$2y$`), or phpass (`$P$`) for older WordPress. */
export type PasswordHashFormat = 'bcrypt' | 'phpass';

/** A phpass portable hash (`$P$B...`, 2^13 rounds), which every WordPress version verifies. */
export function hashPhpass(password: string): string {
  const setting = `$P$B${encode64(randomBytes(6), 6)}`;
  return phpassCrypt(password, setting) as string;
}

/** Hashes a login password in the configured format. */
export function hashPassword(password: string, format: PasswordHashFormat = 'bcrypt'): string {
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES)
    throw new RangeError(`A password is at most ${MAX_PASSWORD_BYTES} bytes long.`);
  return format === 'phpass' ? hashPhpass(password) : hashWordPressPassword(password);
}

/** `true` when a stored hash is older than the configured format and should be replaced on the next login. */
export function needsRehash(stored: string, format: PasswordHashFormat = 'bcrypt'): boolean {
  return format === 'bcrypt' ? !stored.startsWith('$wp$') : !stored.startsWith('$P$') && !stored.startsWith('$wp$');
}

/** A well-formed bcrypt hash (cost 04–31), plain (`$2a$`/`$2b$`/`$2y$`) or WordPress's (`$wp$2y$`). */
const BCRYPT_HASH = /^(?:\$wp)?\$2[aby]\$(?:0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

/**
 * `true` when checking a password against `stored` costs a slow hash computation: a well-formed bcrypt hash or
 * phpass hash. `false` for an empty, malformed or unknown value (which never verifies) and for the legacy bare MD5
 * (which verifies, but in microseconds).
 */
export function isSlowPasswordHash(stored: string | null | undefined): boolean {
  if (!stored) return false;
  if (BCRYPT_HASH.test(stored)) return true;
  if (stored.startsWith('$P$') || stored.startsWith('$H$')) {
    const countLog2 = ITOA64.indexOf(stored[3]);
    return stored.length === 34 && countLog2 >= 7 && countLog2 <= 30 && /^[./A-Za-z0-9]+$/.test(stored.slice(4));
  }
  return false;
}

const dummyHashes = new Map<PasswordHashFormat, string>();

/**
 * The hash of a random, never-shown password in `format`, at the cost {@link hashPassword} gives new passwords
 * (`$wp$2y$10$` or `$P$B`): made once per process and format, on first use. Checking a password against it costs
 * what checking a real user's password costs and never succeeds, so that a name without a user (or without a
 * usable hash) takes as long to refuse as a wrong password, and response times do not tell which users exist.
 */
export function dummyPasswordHash(format: PasswordHashFormat = 'bcrypt'): string {
  let hash = dummyHashes.get(format);
  if (hash === undefined) {
    hash = hashPassword(randomBytes(24).toString('base64'), format);
    dummyHashes.set(format, hash);
  }
  return hash;
}
