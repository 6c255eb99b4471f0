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
  let hash = createHash('md5').update(Buffer.concat([Buffer.from(salt, 'binary'), pass])).digest();
  for (let count = 1 << countLog2; count > 0; count--) {
    hash = createHash('md5').update(Buffer.concat([hash, pass])).digest();
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
 * Checks a password against a hash stored by WordPress: phpass portable (`$P$`), WordPress's bcrypt (`$wp$2y$`),
 * plain bcrypt (`$2y$`) and the legacy bare MD5.
 */
export function verifyWordPressPassword(password: string, stored: string): boolean {
  if (!stored) return false;
  if (stored.startsWith('$wp$')) return bcrypt.compareSync(wpPrehash(password), stored.slice(3).replace(/^\$2y\$/, '$2b$'));
  if (/^\$2[aby]\$/.test(stored)) return bcrypt.compareSync(password, stored.replace(/^\$2y\$/, '$2b$'));
  if (stored.startsWith('$P$') || stored.startsWith('$H$')) {
    const computed = phpassCrypt(password, stored);
    return computed !== null && safeEqual(computed, stored);
  }
  if (stored.length <= 32) return safeEqual(createHash('md5').update(password).digest('hex'), stored);
  return false;
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
  return format === 'phpass' ? hashPhpass(password) : hashWordPressPassword(password);
}

/** `true` when a stored hash is older than the configured format and should be replaced on the next login. */
export function needsRehash(stored: string, format: PasswordHashFormat = 'bcrypt'): boolean {
  return format === 'bcrypt' ? !stored.startsWith('$wp$') : !stored.startsWith('$P$') && !stored.startsWith('$wp$');
}
