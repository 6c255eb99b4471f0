import bcrypt from 'bcryptjs';
import {
  dummyPasswordHash,
  hashPassword,
  hashWordPressPassword,
  isSlowPasswordHash,
  MAX_PASSWORD_BYTES,
  verifyWordPressPassword,
} from './password-hash';

/**
 * Hashes made by WordPress and PHP, pasted as literals. The application password and its hash come from the local,
 * throwaway WordPress 6.1 test install (`wp_usermeta._application_passwords` of user 1 in the wp_oracle database);
 * the others were made with /usr/share/wordpress/wp-includes/class-phpass.php and PHP 8.2's password_hash.
 */
const ORACLE_APP_PASSWORD = '8DiCAyATlR3YkPxXNDwv3zSz';
const ORACLE_APP_PASSWORD_HASH = '$P$Bclanyr7MWkDvIat0XeGtQmtvbKUhw.';

/** `(new PasswordHash(8, true))->HashPassword('secret')` */
const PHPASS_SECRET = '$P$BPLAGMZ05mpb2najKCJl3TrZ2esp5w0';
/** phpass `crypt_private('secret', '$P$7abcdefgh')` (2^9 rounds) */
const PHPASS_SECRET_LOW_COUNT = '$P$7abcdefghsV9J/lGkm3gDU593SXD5h1';
/** phpass `crypt_private('secret', '$H$9abcdefgh')` (phpBB's `$H$` prefix) */
const PHPASS_H_SECRET = '$H$9abcdefghU8VFtCLLavdW.IKqnQV7E0';
/** phpass of a non-ASCII password, 'pässwörd ünicode' */
const PHPASS_UNICODE = '$P$BcapITl8xcNaKp3uXLxu5r1xfCKFMx.';
/**
 * WordPress 6.8:
 * `'$wp' . password_hash(base64_encode(hash_hmac('sha384', 'secret', 'wp-sha384', true)), PASSWORD_BCRYPT)`
 */
const WP_BCRYPT_SECRET = '$wp$2y$10$.eGywz/psjiXflVxVfPTLuYONwIdkxywB6pYTDOTtc5tAVTSym.PO';
/** The same for 'pässwörd ünicode', cost 4 */
const WP_BCRYPT_UNICODE = '$wp$2y$04$lCqS.v83xB/2wuYxPEM5tOdKmK7JciDGySYRXtX.mx34nWn2X0GwK';
/** `password_hash('secret', PASSWORD_BCRYPT)` */
const BCRYPT_2Y_SECRET = '$2y$10$a811mj4eIvhre0Dz7Ypg/OzGQE81YLQEv2B2pYnN0u7OWdIWNmyna';
/** `crypt('secret', '$2a$04$abcdefghijklmnopqrstuu')` */
const BCRYPT_2A_SECRET = '$2a$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW';
/** `md5('secret')`, as set by hand through phpMyAdmin */
const MD5_SECRET = '5ebe2294ecd0e0f08eab7690d2a6ee69';

describe('verifyWordPressPassword', () => {
  describe('phpass portable hashes ($P$)', () => {
    it('accepts the application password stored by WordPress', () => {
      expect(verifyWordPressPassword(ORACLE_APP_PASSWORD, ORACLE_APP_PASSWORD_HASH)).toBe(true);
    });

    it('rejects a wrong application password', () => {
      expect(verifyWordPressPassword('8DiCAyATlR3YkPxXNDwv3zSy', ORACLE_APP_PASSWORD_HASH)).toBe(false);
      expect(verifyWordPressPassword(ORACLE_APP_PASSWORD.toLowerCase(), ORACLE_APP_PASSWORD_HASH)).toBe(false);
      expect(verifyWordPressPassword('', ORACLE_APP_PASSWORD_HASH)).toBe(false);
    });

    it('accepts a hash made by PHP phpass and rejects a wrong password', () => {
      expect(verifyWordPressPassword('secret', PHPASS_SECRET)).toBe(true);
      expect(verifyWordPressPassword('Secret', PHPASS_SECRET)).toBe(false);
    });

    it('reads the iteration count from the hash', () => {
      expect(verifyWordPressPassword('secret', PHPASS_SECRET_LOW_COUNT)).toBe(true);
    });

    it('accepts the $H$ prefix', () => {
      expect(verifyWordPressPassword('secret', PHPASS_H_SECRET)).toBe(true);
      expect(verifyWordPressPassword('secrets', PHPASS_H_SECRET)).toBe(false);
    });

    it('hashes the UTF-8 bytes of the password', () => {
      expect(verifyWordPressPassword('pässwörd ünicode', PHPASS_UNICODE)).toBe(true);
      expect(verifyWordPressPassword('passwort unicode', PHPASS_UNICODE)).toBe(false);
    });

    it('rejects a hash that is cut short or has an out-of-range count', () => {
      expect(verifyWordPressPassword('secret', PHPASS_SECRET.slice(0, -1))).toBe(false);
      expect(verifyWordPressPassword('secret', '$P$Babc')).toBe(false);
      // '4' is count 2^6 and 'z' 2^63: phpass only allows 2^7 to 2^30.
      expect(verifyWordPressPassword('secret', `$P$4${PHPASS_SECRET.slice(4)}`)).toBe(false);
      expect(verifyWordPressPassword('secret', `$P$z${PHPASS_SECRET.slice(4)}`)).toBe(false);
    });
  });

  describe('WordPress 6.8 bcrypt ($wp$2y$)', () => {
    it('accepts a hash made the way WordPress 6.8 does and rejects a wrong password', () => {
      expect(verifyWordPressPassword('secret', WP_BCRYPT_SECRET)).toBe(true);
      expect(verifyWordPressPassword('secret!', WP_BCRYPT_SECRET)).toBe(false);
    });

    it('accepts a non-ASCII password', () => {
      expect(verifyWordPressPassword('pässwörd ünicode', WP_BCRYPT_UNICODE)).toBe(true);
      expect(verifyWordPressPassword('passwörd ünicode', WP_BCRYPT_UNICODE)).toBe(false);
    });

    it('does not accept the pre-hash-less password for a $wp$ hash (the HMAC step matters)', () => {
      expect(verifyWordPressPassword('secret', `$wp${BCRYPT_2Y_SECRET}`)).toBe(false);
    });
  });

  describe('plain bcrypt ($2y$, $2a$)', () => {
    it('accepts a PHP password_hash bcrypt hash and rejects a wrong password', () => {
      expect(verifyWordPressPassword('secret', BCRYPT_2Y_SECRET)).toBe(true);
      expect(verifyWordPressPassword('secreT', BCRYPT_2Y_SECRET)).toBe(false);
    });

    it('accepts $2a$ hashes', () => {
      expect(verifyWordPressPassword('secret', BCRYPT_2A_SECRET)).toBe(true);
      expect(verifyWordPressPassword('other', BCRYPT_2A_SECRET)).toBe(false);
    });

    it('does not apply the WordPress pre-hash to a plain bcrypt hash', () => {
      expect(verifyWordPressPassword('secret', WP_BCRYPT_SECRET.slice(3))).toBe(false);
    });
  });

  describe('legacy MD5', () => {
    it('accepts the bare MD5 hex digest and rejects a wrong password', () => {
      expect(verifyWordPressPassword('secret', MD5_SECRET)).toBe(true);
      expect(verifyWordPressPassword('secret2', MD5_SECRET)).toBe(false);
    });
  });

  describe('other stored values', () => {
    it('rejects an empty stored hash, even for an empty password', () => {
      expect(verifyWordPressPassword('', '')).toBe(false);
      expect(verifyWordPressPassword('secret', '')).toBe(false);
    });

    it('rejects an unknown hash format longer than 32 characters', () => {
      expect(verifyWordPressPassword('secret', `$argon2id$v=19$m=65536,t=4,p=1$${'x'.repeat(40)}`)).toBe(false);
      expect(verifyWordPressPassword('secret', 'x'.repeat(40))).toBe(false);
    });

    it('does not treat the stored value as a plain-text password', () => {
      expect(verifyWordPressPassword('secret', 'secret')).toBe(false);
    });
  });
});

describe('hashWordPressPassword', () => {
  it('produces a WordPress 6.8 $wp$2y$ bcrypt hash of cost 10', () => {
    const hash = hashWordPressPassword('secret');
    expect(hash).toMatch(/^\$wp\$2y\$10\$[./A-Za-z0-9]{53}$/);
  });

  it('produces a hash that verifies with the same password only', () => {
    const hash = hashWordPressPassword('correct horse');
    expect(verifyWordPressPassword('correct horse', hash)).toBe(true);
    expect(verifyWordPressPassword('correct horse battery', hash)).toBe(false);
  });

  it('salts each hash', () => {
    expect(hashWordPressPassword('secret')).not.toBe(hashWordPressPassword('secret'));
  });

  it('trims the password before hashing, like wp_hash_password', () => {
    expect(verifyWordPressPassword('secret', hashWordPressPassword('  secret \n'))).toBe(true);
  });

  it('keeps passwords longer than 72 bytes distinct, thanks to the HMAC pre-hash', () => {
    const long = 'a'.repeat(80);
    const hash = hashWordPressPassword(`${long}1`);
    expect(verifyWordPressPassword(`${long}1`, hash)).toBe(true);
    expect(verifyWordPressPassword(`${long}2`, hash)).toBe(false);
  });
});

describe('malformed bcrypt hashes', () => {
  it('are refused, not thrown on (bad cost, bad salt)', () => {
    expect(verifyWordPressPassword('secret', `$2y$99$${'a'.repeat(53)}`)).toBe(false);
    expect(verifyWordPressPassword('secret', `$2y$03$${'a'.repeat(53)}`)).toBe(false);
    expect(verifyWordPressPassword('secret', `$wp$2y$10$${'!'.repeat(53)}`)).toBe(false);
  });
});

describe('isSlowPasswordHash', () => {
  it('is true for well-formed bcrypt and phpass hashes', () => {
    for (const hash of [
      WP_BCRYPT_SECRET,
      WP_BCRYPT_UNICODE,
      BCRYPT_2Y_SECRET,
      BCRYPT_2A_SECRET,
      PHPASS_SECRET,
      PHPASS_H_SECRET,
      PHPASS_SECRET_LOW_COUNT,
      ORACLE_APP_PASSWORD_HASH,
    ]) {
      expect([hash, isSlowPasswordHash(hash)]).toEqual([hash, true]);
    }
    expect(isSlowPasswordHash(hashPassword('x', 'bcrypt'))).toBe(true);
    expect(isSlowPasswordHash(hashPassword('x', 'phpass'))).toBe(true);
  });

  it('is false for no hash, malformed or unknown ones, and the (fast) bare MD5', () => {
    for (const hash of [
      undefined,
      null,
      '',
      MD5_SECRET,
      'secret',
      PHPASS_SECRET.slice(0, -1),
      '$P$Babc',
      `$P$4${PHPASS_SECRET.slice(4)}`,
      `$2y$99$${'a'.repeat(53)}`,
      `$2y$10$${'a'.repeat(52)}`,
      `$argon2id$v=19$m=65536,t=4,p=1$${'x'.repeat(40)}`,
    ]) {
      expect([hash, isSlowPasswordHash(hash)]).toEqual([hash, false]);
    }
  });
});

describe('dummyPasswordHash', () => {
  it('is a hash in the format and at the cost of new passwords, made once per process and format', () => {
    const bcryptHash = dummyPasswordHash('bcrypt');
    expect(bcryptHash).toMatch(/^\$wp\$2y\$10\$[./A-Za-z0-9]{53}$/);
    expect(bcryptHash.slice(0, 10)).toBe(hashPassword('x', 'bcrypt').slice(0, 10));
    expect(dummyPasswordHash()).toBe(bcryptHash);
    const phpass = dummyPasswordHash('phpass');
    expect(phpass).toMatch(/^\$P\$B[./A-Za-z0-9]{30}$/);
    expect(phpass.slice(0, 4)).toBe(hashPassword('x', 'phpass').slice(0, 4));
    expect(dummyPasswordHash('phpass')).toBe(phpass);
  });

  it('is made lazily, on first use, with one bcrypt hashing', () => {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the module, inside isolateModules
      const isolatedBcrypt = require('bcryptjs') as typeof bcrypt;
      const hashing = jest.spyOn(isolatedBcrypt, 'hashSync');
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the module, inside isolateModules
        const fresh = require('./password-hash') as typeof import('./password-hash');
        expect(hashing).not.toHaveBeenCalled();
        const first = fresh.dummyPasswordHash('bcrypt');
        expect(hashing).toHaveBeenCalledTimes(1);
        expect(fresh.dummyPasswordHash('bcrypt')).toBe(first);
        expect(hashing).toHaveBeenCalledTimes(1);
      } finally {
        hashing.mockRestore();
      }
    });
  });

  it('verifies no typical password, and costs a bcrypt check of cost 10', () => {
    const compare = jest.spyOn(bcrypt, 'compareSync');
    try {
      for (const password of ['', 'secret', 'password', 'admin'])
        expect(verifyWordPressPassword(password, dummyPasswordHash('bcrypt'))).toBe(false);
      expect(compare).toHaveBeenCalledTimes(4);
      expect(compare.mock.calls[0][1]).toMatch(/^\$2b\$10\$/);
    } finally {
      compare.mockRestore();
    }
  });
});

describe('the length of a password is bounded, as phpass bounds it', () => {
  it('checks a password of MAX_PASSWORD_BYTES bytes, and refuses a longer one before hashing it', () => {
    const longest = 'é'.repeat(MAX_PASSWORD_BYTES / 2);
    expect(verifyWordPressPassword(longest, hashPassword(longest, 'phpass'))).toBe(true);
    expect(() => hashPassword(`${longest}x`, 'phpass')).toThrow(RangeError);
    expect(() => hashPassword(`${longest}x`)).toThrow(RangeError);
  });

  it('refuses a 1 MB password against a phpass hash at once (its 8,192 rounds took a minute)', () => {
    const stored = hashPassword('secret', 'phpass');
    const started = process.cpuUsage();
    expect(verifyWordPressPassword('x'.repeat(1_000_000), stored)).toBe(false);
    const used = process.cpuUsage(started);
    // Far under one round of the check at that length (8 ms); the rounds took 60 s here.
    expect((used.user + used.system) / 1000).toBeLessThan(1000);
  });
});
