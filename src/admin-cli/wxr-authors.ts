import { UserAccountsService } from '../core/auth/user-accounts.service';
import { UserEntity } from '../core/database/entities/user.entity';
import { UserMetaEntity } from '../core/database/entities/user-meta.entity';
import { TablePrefix } from '../core/database/table-prefix';
import { message, Tally, WxrImportContext } from './wxr-import-support';
import { WxrAuthor } from './wxr-reader';

/**
 * The authors of a WXR file as users here: matched by login, created when missing (like WordPress's importer);
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
    private readonly tally: Tally,
  ) {
    this.accounts = ctx.get(UserAccountsService);
    this.prefix = ctx.get<TablePrefix>(TablePrefix).value;
  }

  async importAuthor(author: WxrAuthor): Promise<void> {
    const login = author.login;
    try {
      const existing = await this.accounts.findUserByLogin(login);
      if (existing) {
        this.remember(author, Number(existing.id));
        this.tally.skipped++;
        return;
      }
      const user = await this.accounts.createUser({
        login,
        email: author.email || `${login}@localhost.localdomain`,
        displayName: author.displayName || undefined,
        firstName: author.firstName || undefined,
        lastName: author.lastName || undefined,
      });
      this.remember(author, Number(user.id));
      this.tally.created++;
    } catch (error) {
      this.tally.failed++;
      this.ctx.report(`Failed: author "${login}": ${message(error)} (their content goes to the first administrator)`);
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
    const known = this.userByLogin.get(login.toLowerCase());
    if (known !== undefined) return known;
    // WXR 1.0 has no author list: creators are matched by login among existing users.
    const user = login ? await this.accounts.findUserByLogin(login) : null;
    const id = user ? Number(user.id) : await this.fallbackAuthor();
    this.userByLogin.set(login.toLowerCase(), id);
    return id;
  }
}
