import { readFileSync, statSync } from 'node:fs';
import { UserAccountsService } from '../core/auth/user-accounts.service';
import { UserEntity } from '../core/database/entities/user.entity';
import { UserMetaEntity } from '../core/database/entities/user-meta.entity';
import { TablePrefix } from '../core/database/table-prefix';
import { CliError } from './command-line';
import { message, WxrImportContext } from './wxr-import-support';
import { WxrAuthor } from './wxr-reader';

/**
 * What becomes of the file's authors (`--authors`): `create` the ones missing here (WordPress's importer's "import
 * as new user"), give everything to the first administrator (`admin`), or map file logins to existing users (`map`;
 * the authors the map leaves out are created).
 */
export type AuthorMode = { kind: 'create' } | { kind: 'admin' } | { kind: 'map'; map: ReadonlyMap<string, string> };

/** Largest author map read (`--authors map:<file>`). */
const MAX_MAP_BYTES = 1024 * 1024;

/** `--authors create|admin|map:<file.json>`, the map a JSON object `{ "fileLogin": "existingLogin" }`. */
export function parseAuthorMode(value: string | undefined): AuthorMode {
  if (value === undefined || value === 'create') return { kind: 'create' };
  if (value === 'admin') return { kind: 'admin' };
  if (!value.startsWith('map:') || value.length === 4)
    throw new CliError(`Invalid --authors "${value}": create, admin or map:<file.json>.`);
  const file = value.slice(4);
  let parsed: unknown;
  try {
    if (statSync(file).size > MAX_MAP_BYTES) throw new Error(`larger than ${MAX_MAP_BYTES} bytes`);
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`Cannot read the author map "${file}": ${message(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliError(`The author map "${file}" must be a JSON object: { "fileLogin": "existingLogin" }.`);
  const map = new Map<string, string>();
  for (const [from, to] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof to !== 'string' || !to)
      throw new CliError(`The author map "${file}" sends "${from}" to ${JSON.stringify(to)}: a login is needed.`);
    map.set(from, to);
  }
  return { kind: 'map', map };
}

/**
 * The authors of a WXR file as users here: matched by login, created when missing, or mapped (see {@link AuthorMode});
 * content whose author cannot be matched goes to the first administrator.
 */
export class WxrAuthors {
  private readonly accounts: UserAccountsService;
  private readonly prefix: string;
  /** WXR login → user id here. */
  private readonly userByLogin = new Map<string, number>();
  /** WXR author id → user id here. */
  private readonly userById = new Map<number, number>();
  private defaultAuthor: number | null = null;

  constructor(
    private readonly ctx: WxrImportContext,
    private readonly mode: AuthorMode = { kind: 'create' },
  ) {
    this.accounts = ctx.get(UserAccountsService);
    this.prefix = ctx.get<TablePrefix>(TablePrefix).value;
  }

  /** Checks, before anything is imported, that every user the map names exists. */
  async checkMap(): Promise<void> {
    if (this.mode.kind !== 'map') return;
    for (const [from, to] of this.mode.map) {
      if (!(await this.accounts.findUserByLogin(to)))
        throw new CliError(`The author map sends "${from}" to "${to}", who is not a user here.`);
    }
  }

  async importAuthor(author: WxrAuthor): Promise<void> {
    const login = author.login;
    const label = `"${login}"`;
    const ids = { fileId: author.id || undefined };
    try {
      if (this.mode.kind === 'admin') {
        const admin = await this.fallbackAuthor();
        this.remember(author, admin);
        this.ctx.report.skipped('author', label, 'their content goes to the first administrator (--authors admin)', {
          ...ids,
          id: admin,
        });
        return;
      }
      const mapped = this.mode.kind === 'map' ? this.mode.map.get(login) : undefined;
      if (mapped !== undefined) {
        const user = await this.accounts.findUserByLogin(mapped);
        if (!user) throw new Error(`the author map names "${mapped}", who is not a user here`);
        this.remember(author, Number(user.id));
        this.ctx.report.skipped('author', label, `mapped to the user "${mapped}"`, { ...ids, id: Number(user.id) });
        return;
      }
      const existing = await this.accounts.findUserByLogin(login);
      if (existing) {
        this.remember(author, Number(existing.id));
        this.ctx.report.skipped('author', label, 'a user with this login is already there', {
          ...ids,
          id: Number(existing.id),
        });
        return;
      }
      let id: number;
      if (this.ctx.dryRun) id = this.ctx.fakeId();
      else {
        const user = await this.accounts.createUser({
          login,
          email: author.email || `${login}@localhost.localdomain`,
          displayName: author.displayName || undefined,
          firstName: author.firstName || undefined,
          lastName: author.lastName || undefined,
        });
        id = Number(user.id);
      }
      this.remember(author, id);
      this.ctx.report.created('author', label, { ...ids, id });
    } catch (error) {
      this.ctx.report.failed('author', label, `${message(error)} (their content goes to the first administrator)`, ids);
    }
  }

  private remember(author: WxrAuthor, userId: number): void {
    this.userByLogin.set(author.login.toLowerCase(), userId);
    if (author.id) this.userById.set(author.id, userId);
  }

  /** The user here of a WXR author id, if that author was imported or matched. */
  userOf(wxrAuthorId: number): number | undefined {
    return this.userById.get(wxrAuthorId);
  }

  /** The first administrator (lowest id), for content whose author could not be matched; 0 when none. */
  async fallbackAuthor(): Promise<number> {
    if (this.defaultAuthor === null) {
      const row = await this.ctx.dataSource
        .getRepository(UserMetaEntity)
        .createQueryBuilder('m')
        .innerJoin(UserEntity, 'u', 'u.id = m.userId')
        .select('m.userId', 'id')
        .where('m.key = :key', { key: `${this.prefix}capabilities` })
        .andWhere('m.value LIKE :admin', { admin: '%"administrator"%' })
        .orderBy('m.userId', 'ASC')
        .getRawOne<{ id: number }>();
      this.defaultAuthor = row ? Number(row.id) : 0;
    }
    return this.defaultAuthor;
  }

  async authorOf(login: string): Promise<number> {
    if (this.mode.kind === 'admin') return this.fallbackAuthor();
    const known = this.userByLogin.get(login.toLowerCase());
    if (known !== undefined) return known;
    // WXR 1.0 has no author list: creators are matched by login (or the map) among existing users.
    const target = (this.mode.kind === 'map' && this.mode.map.get(login)) || login;
    const user = target ? await this.accounts.findUserByLogin(target) : null;
    const id = user ? Number(user.id) : await this.fallbackAuthor();
    this.userByLogin.set(login.toLowerCase(), id);
    return id;
  }
}
