import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { OptionEntity } from '../database/entities/option.entity';
import { isMySql } from '../database/query-helpers';
import { writeTransaction } from '../database/write-transaction';
import { RestException } from '../errors/rest.exception';
import { maybeUnserialize } from '../formatting/php-serialize';
import { sanitizeTextField } from '../formatting/sanitize-text';
import { hashPhpass, verifyWordPressPassword } from './password-hash';
import { generatePassword, getUserMeta, lockUser, updateUserMeta } from './user-records';

/**
 * One application password, exactly as WordPress (5.6–6.x) keeps it in the `_application_passwords` user meta.
 * `password` is a hash, never the plain password.
 */
export interface ApplicationPasswordItem {
  uuid: string;
  app_id: string;
  name: string;
  password: string;
  /** Unix time of creation. */
  created: number;
  /** Unix time of the last (recorded) use, or `null`. */
  last_used: number | null;
  /** IP address of the last (recorded) use, or `null`. */
  last_ip: string | null;
}

/** Result of {@link ApplicationPasswords.createApplicationPassword}: the plain password is shown once, here only. */
export interface CreatedApplicationPassword {
  /** 24 characters `[A-Za-z0-9]` (`wp_generate_password( 24, false )`). */
  password: string;
  item: ApplicationPasswordItem;
}

/** User meta key of the application passwords (`WP_Application_Passwords::USERMETA_KEY_APPLICATION_PASSWORDS`). */
export const APPLICATION_PASSWORDS_META_KEY = '_application_passwords';
/** Site option set once any application password exists (`WP_Application_Passwords::OPTION_KEY_IN_USE`). */
export const APPLICATION_PASSWORDS_IN_USE_OPTION = 'using_application_passwords';
const DAY_IN_SECONDS = 24 * 60 * 60;

/** PHP 8 `strtolower()` (ASCII only). */
const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (c) => c.toLowerCase());

/**
 * `PasswordHash(8, true)->HashPassword()`: the `$P$B` hash WordPress up to 6.7 stores for application passwords.
 * Every WordPress version (and {@link verifyWordPressPassword}) verifies it; application passwords are
 * 24 random characters, so a fast hash loses nothing (WordPress 6.8 moved them to an even faster one).
 */
export function hashApplicationPassword(password: string): string {
  return hashPhpass(password);
}

let dummyApplicationPassword: string | undefined;

/**
 * A {@link hashApplicationPassword} hash of a random, never-shown password, made once per process on first use.
 * Checking a password against it costs what checking one stored application password costs, and never succeeds:
 * HTTP Basic refuses a name without a user (or a user without application passwords) after that work, so that
 * response times do not tell which users exist.
 */
export function dummyApplicationPasswordHash(): string {
  return (dummyApplicationPassword ??= hashApplicationPassword(generatePassword(24)));
}

/** The stored list with its PHP array keys (WordPress `unset()`s deleted items, leaving gaps in the keys). */
type StoredList = Map<number, ApplicationPasswordItem>;

/**
 * A user's application passwords (`WP_Application_Passwords`), kept exactly as WordPress keeps them in the
 * `_application_passwords` user meta, so that a WordPress sharing the database sees the same ones.
 */
@Injectable()
export class ApplicationPasswords {
  constructor(@Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** Reads the stored list, keeping PHP's keys; items without uuid get one (as WordPress does on read). */
  private static parseList(value: string | null | undefined): { list: StoredList; repaired: boolean } {
    const data = maybeUnserialize(value);
    const list: StoredList = new Map();
    let repaired = false;
    if (!data || typeof data !== 'object') return { list, repaired };
    const entries = Array.isArray(data) ? data.map((item, i) => [String(i), item] as const) : Object.entries(data);
    for (const [key, item] of entries) {
      if (!item || typeof item !== 'object' || !/^-?\d+$/.test(key)) continue;
      const entry = { ...(item as ApplicationPasswordItem) };
      if (typeof entry.uuid !== 'string') {
        entry.uuid = randomUUID();
        repaired = true;
      }
      list.set(Number(key), entry);
    }
    return { list, repaired };
  }

  /** The value `serialize()` gives for the list: `a:n:{i:<key>;a:7:{...}...}`. */
  private static serializeList(list: StoredList): Map<string, ApplicationPasswordItem> {
    return new Map([...list].map(([key, item]) => [String(key), item]));
  }

  /**
   * The stored list; items without a uuid get one, saved at once (as `get_user_application_passwords()`).
   * `stored`: the meta's text when the caller read it already (`null`: none).
   */
  private async readList(userId: number, stored?: { value: string | null }): Promise<StoredList> {
    const row = stored ?? (await getUserMeta(this.dataSource.manager, userId, APPLICATION_PASSWORDS_META_KEY));
    const { list, repaired } = ApplicationPasswords.parseList(row?.value);
    if (!repaired) return list;
    return this.modifyList(userId, (current) => ({ result: current, save: false }));
  }

  /** Read-modify-write of the list in a transaction, the user row locked (MySQL) so concurrent writes queue. */
  private async modifyList<T>(
    userId: number,
    change: (
      list: StoredList,
      manager: EntityManager,
    ) => Promise<{ result: T; save: boolean }> | { result: T; save: boolean },
  ): Promise<T> {
    return writeTransaction(this.dataSource, async (em) => {
      await lockUser(em, userId, isMySql(this.dataSource));
      const row = await getUserMeta(em, userId, APPLICATION_PASSWORDS_META_KEY);
      const { list, repaired } = ApplicationPasswords.parseList(row?.value);
      const { result, save } = await change(list, em);
      if (save || repaired)
        await updateUserMeta(em, userId, APPLICATION_PASSWORDS_META_KEY, ApplicationPasswords.serializeList(list));
      return result;
    });
  }

  /**
   * `WP_Application_Passwords::create_new_application_password()`: a new 24-character password, stored hashed
   * (phpass `$P$B`, as WordPress 6.1) with a v4 UUID; also sets the `using_application_passwords` option.
   * The plain password is returned here only.
   *
   * @throws RestException `application_password_empty_name` (400), `application_password_duplicate_name` (409),
   *   `rest_user_invalid_id` (404).
   */
  async createApplicationPassword(userId: number, name: string, appId = ''): Promise<CreatedApplicationPassword> {
    const cleanName = sanitizeTextField(String(name ?? ''));
    if (!cleanName) {
      throw new RestException(
        'application_password_empty_name',
        'An application name is required to create an application password.',
        400,
      );
    }
    const password = generatePassword(24);
    const hash = hashApplicationPassword(password);
    const item = await this.modifyList(userId, async (list, em) => {
      if ([...list.values()].some((existing) => asciiLower(String(existing.name)) === asciiLower(cleanName))) {
        throw new RestException('application_password_duplicate_name', 'Each application name should be unique.', 409);
      }
      const created: ApplicationPasswordItem = {
        uuid: randomUUID(),
        app_id: appId || '',
        name: cleanName,
        password: hash,
        created: Math.floor(Date.now() / 1000),
        last_used: null,
        last_ip: null,
      };
      // PHP's `$passwords[] = $item`: the next integer key after the largest one.
      const nextKey = list.size ? Math.max(...list.keys()) + 1 : 0;
      list.set(Math.max(nextKey, 0), created);
      await this.markApplicationPasswordsInUse(em);
      return { result: created, save: true };
    });
    return { password, item };
  }

  /** `update_network_option( ..., 'using_application_passwords', true )` of a single site (autoload no). */
  private async markApplicationPasswordsInUse(em: EntityManager): Promise<void> {
    const repo = em.getRepository(OptionEntity);
    const row = await repo.findOne({ where: { name: APPLICATION_PASSWORDS_IN_USE_OPTION } });
    if (!row) {
      // Another request creating an application password may add it meanwhile.
      await repo
        .createQueryBuilder()
        .insert()
        .values({ name: APPLICATION_PASSWORDS_IN_USE_OPTION, value: '1', autoload: 'no' })
        .orIgnore()
        .execute();
    } else if (!row.value || row.value === '0') {
      await repo.update({ id: row.id }, { value: '1' });
    }
  }

  /** The user's application passwords (hashes included), in stored order. */
  async listApplicationPasswords(
    userId: number,
    stored?: { value: string | null },
  ): Promise<ApplicationPasswordItem[]> {
    return [...(await this.readList(userId, stored)).values()];
  }

  /** One application password by UUID, or `null`. */
  async getApplicationPassword(userId: number, uuid: string): Promise<ApplicationPasswordItem | null> {
    return (await this.listApplicationPasswords(userId)).find((item) => item.uuid === uuid) ?? null;
  }

  /**
   * Renames an application password (an empty name leaves it unchanged, as WordPress does).
   *
   * @returns the item, or `null` when the user has no application password with that UUID.
   * @throws RestException `application_password_duplicate_name` (409) when another one has that name.
   */
  async updateApplicationPassword(
    userId: number,
    uuid: string,
    update: { name?: string },
  ): Promise<ApplicationPasswordItem | null> {
    const name = update.name ? sanitizeTextField(update.name) : '';
    return this.modifyList(userId, (list) => {
      const entry = [...list].find(([, item]) => item.uuid === uuid);
      if (!entry) return { result: null, save: false };
      const [key, item] = entry;
      if (!name || item.name === name) return { result: item, save: false };
      for (const [otherKey, other] of list) {
        if (otherKey !== key && asciiLower(String(other.name)) === asciiLower(name)) {
          throw new RestException(
            'application_password_duplicate_name',
            'Each application name should be unique.',
            409,
          );
        }
      }
      const updated = { ...item, name };
      list.set(key, updated);
      return { result: updated, save: true };
    });
  }

  /** Deletes one application password; `false` when there is none with that UUID. Other items keep their keys, as with PHP's `unset()`. */
  async deleteApplicationPassword(userId: number, uuid: string): Promise<boolean> {
    return this.modifyList(userId, (list) => {
      const entry = [...list].find(([, item]) => item.uuid === uuid);
      if (!entry) return { result: false, save: false };
      list.delete(entry[0]);
      return { result: true, save: true };
    });
  }

  /** Deletes all the user's application passwords; returns how many there were. */
  async deleteAllApplicationPasswords(userId: number): Promise<number> {
    return this.modifyList(userId, (list) => {
      const count = list.size;
      list.clear();
      return { result: count, save: count > 0 };
    });
  }

  /**
   * `record_application_password_usage()`: stores the time and IP of a use, at most once a day per password.
   *
   * @returns `false` when the user has no application password with that UUID.
   */
  async recordApplicationPasswordUse(userId: number, uuid: string, ip: string | null): Promise<boolean> {
    const isDue = (item: ApplicationPasswordItem, now: number) => !(Number(item.last_used ?? 0) + DAY_IN_SECONDS > now);
    // Cheap read first: most uses are within the day and write nothing.
    const current = await this.getApplicationPassword(userId, uuid);
    if (!current) return false;
    if (!isDue(current, Math.floor(Date.now() / 1000))) return true;
    return this.modifyList(userId, (list) => {
      const entry = [...list].find(([, item]) => item.uuid === uuid);
      if (!entry) return { result: false, save: false };
      const now = Math.floor(Date.now() / 1000);
      if (!isDue(entry[1], now)) return { result: true, save: false };
      list.set(entry[0], { ...entry[1], last_used: now, last_ip: ip });
      return { result: true, save: true };
    });
  }

  /**
   * The application password of the user that `plainPassword` matches (characters other than letters and
   * digits are ignored, so the chunked form `abcd efgh ...` works), or `null`.
   */
  async findApplicationPassword(userId: number, plainPassword: string): Promise<ApplicationPasswordItem | null> {
    const password = plainPassword.replace(/[^a-z\d]/gi, '');
    if (!password) return null;
    for (const item of await this.listApplicationPasswords(userId)) {
      if (typeof item.password === 'string' && verifyWordPressPassword(password, item.password)) return item;
    }
    return null;
  }
}
