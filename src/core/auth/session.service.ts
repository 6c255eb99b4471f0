import { Inject, Injectable, Optional } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { UserEntity } from '../database/entities/user.entity';
import { UserMetaEntity } from '../database/entities/user-meta.entity';
import { maybeSerialize, maybeUnserialize } from '../formatting/php-serialize';
import { OptionsService } from '../options/options.service';
import { writeTransaction } from '../database/write-transaction';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'cms_logged_in';
/** Lifetime of a session (two days, as WordPress without "remember me"). */
export const SESSION_SECONDS = 2 * 24 * 3600;
const NONCE_LIFE_SECONDS = 24 * 3600;
const SECRET_OPTION = 'cms_auth_secret';

interface StoredSession {
  expiration: number;
  ip?: string;
  ua?: string;
  login: number;
}

/**
 * Cookie sessions and nonces. A session cookie is `login|expiration|token|hmac`, signed with the site's secret and
 * a fragment of the password hash (so changing the password ends every session); the session itself is kept in the
 * `session_tokens` user meta the way WordPress keeps it (keyed by the SHA-256 of the token), so every node of the
 * site sees it. Nonces are the reference's `wp_rest` nonces: an HMAC of the half-day tick, the user and the session,
 * valid for 12 to 24 hours. The secret is the `authSecret` option (`CMS_AUTH_SECRET`) when given — the same on every
 * node, never stored — else one generated on first use and kept in the `cms_auth_secret` option.
 */
@Injectable()
export class SessionService {
  private secret?: string;

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly options: OptionsService,
    @Optional() @Inject(CMS_OPTIONS) cmsOptions?: ResolvedCmsOptions,
  ) {
    this.secret = cmsOptions?.authSecret;
  }

  private async key(): Promise<string> {
    if (this.secret) return this.secret;
    let secret = await this.options.get<string | null>(SECRET_OPTION, null);
    if (!secret) {
      // With several requests or nodes starting at once, the first value stored wins and all read it back.
      secret = await this.options.add<string>(SECRET_OPTION, randomBytes(48).toString('base64'), false);
    }
    this.secret = secret;
    return secret;
  }

  private async hmac(data: string): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(data)
      .digest('hex');
  }

  /** Starts a session for the user; returns the cookie value and its expiry. */
  async create(
    user: UserEntity,
    ip: string,
    userAgent: string,
    now = Date.now(),
  ): Promise<{ cookie: string; expiration: number; token: string }> {
    const token = randomBytes(32).toString('base64url');
    const expiration = Math.floor(now / 1000) + SESSION_SECONDS;
    await this.updateSessions(user.id, (sessions) => {
      sessions[sha256(token)] = { expiration, ip, ua: userAgent, login: Math.floor(now / 1000) };
    });
    const mac = await this.hmac(`${user.login}|${expiration}|${token}|${user.pass.slice(8, 12)}`);
    return { cookie: `${user.login}|${expiration}|${token}|${mac}`, expiration, token };
  }

  /** The user and session token of a valid cookie, or `null`. */
  async verify(cookie: string, now = Date.now()): Promise<{ user: UserEntity; token: string } | null> {
    const parts = cookie.split('|');
    if (parts.length !== 4) return null;
    const [login, exp, token, mac] = parts;
    const expiration = Number(exp);
    if (!Number.isFinite(expiration) || expiration * 1000 < now) return null;
    const user = await this.dataSource.getRepository(UserEntity).findOne({ where: { login } });
    if (!user) return null;
    const expected = await this.hmac(`${login}|${expiration}|${token}|${user.pass.slice(8, 12)}`);
    if (!safeEqual(expected, mac)) return null;
    const sessions = await this.sessions(user.id);
    const session = sessions[sha256(token)];
    if (!session || session.expiration * 1000 < now) return null;
    return { user, token };
  }

  /** Ends one session (logout). */
  async destroy(userId: number, token: string): Promise<void> {
    await this.updateSessions(userId, (sessions) => {
      delete sessions[sha256(token)];
    });
  }

  /** The reference's `wp_create_nonce( $action )` (`wp_rest` unless told) for a user and session. */
  async createNonce(userId: number, token: string, now = Date.now(), action = 'wp_rest'): Promise<string> {
    return this.nonceFor(nonceTick(now), userId, token, action);
  }

  /** `true` when the nonce was made for this user and session within the last 24 hours. */
  async verifyNonce(nonce: string, userId: number, token: string, now = Date.now()): Promise<boolean> {
    const tick = nonceTick(now);
    for (const t of [tick, tick - 1]) if (safeEqual(await this.nonceFor(t, userId, token), nonce)) return true;
    return false;
  }

  private async nonceFor(tick: number, userId: number, token: string, action = 'wp_rest'): Promise<string> {
    const hash = await this.hmac(`${tick}|${action}|${userId}|${token}`);
    return hash.slice(-12, -2);
  }

  private async sessions(userId: number): Promise<Record<string, StoredSession>> {
    const row = await this.dataSource
      .getRepository(UserMetaEntity)
      .findOne({ where: { userId, key: 'session_tokens' } });
    const value = row ? maybeUnserialize(row.value) : null;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, StoredSession>) : {};
  }

  private async updateSessions(
    userId: number,
    change: (sessions: Record<string, StoredSession>) => void,
  ): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      const repo = em.getRepository(UserMetaEntity);
      const row = await repo.findOne({ where: { userId, key: 'session_tokens' } });
      const current = row ? maybeUnserialize(row.value) : null;
      const sessions =
        current && typeof current === 'object' && !Array.isArray(current)
          ? (current as Record<string, StoredSession>)
          : {};
      const nowSeconds = Math.floor(Date.now() / 1000);
      for (const [k, s] of Object.entries(sessions)) if (s.expiration < nowSeconds) delete sessions[k];
      change(sessions);
      if (row) await repo.update({ id: row.id }, { value: maybeSerialize(sessions) });
      else await repo.insert({ userId, key: 'session_tokens', value: maybeSerialize(sessions) });
    });
  }
}

function nonceTick(now: number): number {
  return Math.ceil(now / 1000 / (NONCE_LIFE_SECONDS / 2));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
