import { DataSource, FindOptionsWhere, In, Not } from 'typeorm';
import { CommentEntity } from '../core/database/entities/comment.entity';
import { CommentMetaEntity } from '../core/database/entities/comment-meta.entity';
import { PostEntity } from '../core/database/entities/post.entity';
import { PostMetaEntity } from '../core/database/entities/post-meta.entity';
import { TermMetaEntity } from '../core/database/entities/term-meta.entity';
import { TermRelationshipEntity } from '../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../core/database/entities/term.entity';
import { UserEntity } from '../core/database/entities/user.entity';
import { UserMetaEntity } from '../core/database/entities/user-meta.entity';
import { textOf } from '../core/formatting/php-serialize';
import type { ExportMeta, ExportTerm } from './wxr-xml';

/** What the export reads from the database: authors, terms in parent order, meta, posts' terms and ancestors. */
export class WxrExportSource {
  constructor(private readonly dataSource: DataSource) {}

  /** The authors of the posts `where` selects, by id, with their first and last names (`wxr_authors_list()`). */
  async authors(where: FindOptionsWhere<PostEntity>): Promise<Array<[UserEntity, Record<string, string>]>> {
    const authorRows = await this.dataSource
      .getRepository(PostEntity)
      .createQueryBuilder('p')
      .select('DISTINCT p.author', 'author')
      .where(where)
      .getRawMany<{ author: number }>();
    const authorIds = authorRows.map((r) => Number(r.author)).filter((id) => id > 0);
    if (!authorIds.length) return [];
    const users = await this.dataSource
      .getRepository(UserEntity)
      .find({ where: { id: In(authorIds) }, order: { id: 'ASC' } });
    const names = await this.userNames(users.map((u) => Number(u.id)));
    return users.map((u) => [u, names.get(Number(u.id)) ?? {}]);
  }

  /** Adds the logins of the users `ids` to `logins`. */
  async addLogins(logins: Map<number, string>, ids: number[]): Promise<void> {
    for (const u of await this.dataSource
      .getRepository(UserEntity)
      .find({ select: { id: true, login: true }, where: { id: In(ids) } }))
      logins.set(Number(u.id), u.login);
  }

  /** The comments of the posts `ids`, spam left out. */
  async comments(ids: number[]): Promise<CommentEntity[]> {
    return this.dataSource
      .getRepository(CommentEntity)
      .find({ where: { postId: In(ids), approved: Not('spam') }, order: { id: 'ASC' } });
  }

  private async userNames(ids: number[]): Promise<Map<number, Record<string, string>>> {
    const out = new Map<number, Record<string, string>>();
    if (!ids.length) return out;
    const rows = await this.dataSource
      .getRepository(UserMetaEntity)
      .find({ where: { userId: In(ids), key: In(['first_name', 'last_name']) } });
    for (const r of rows)
      out.set(Number(r.userId), { ...(out.get(Number(r.userId)) ?? {}), [String(r.key)]: r.value ?? '' });
    return out;
  }

  /** Terms to export, each after its parent (`export_wp()` orders them so). */
  async terms(postTypes: string[] | null): Promise<ExportTerm[]> {
    const qb = this.dataSource
      .getRepository(TermTaxonomyEntity)
      .createQueryBuilder('tt')
      .innerJoin(TermEntity, 't', 't.id = tt.termId')
      .select([
        'tt.id AS tt_id',
        'tt.termId AS term_id',
        'tt.taxonomy AS taxonomy',
        'tt.description AS description',
        'tt.parent AS parent',
        't.slug AS slug',
        't.name AS name',
      ])
      // As export_wp(): post formats come with their posts, link categories not at all.
      .where("tt.taxonomy NOT IN ('post_format', 'link_category')")
      .orderBy('tt.termId', 'ASC');
    const rows = (await qb.getRawMany<Record<string, unknown>>()).map((r): ExportTerm => ({
      termId: Number(r.term_id),
      ttId: Number(r.tt_id),
      taxonomy: String(r.taxonomy),
      slug: String(r.slug),
      name: String(r.name),
      description: textOf(r.description),
      parent: Number(r.parent),
    }));
    let wanted = rows;
    if (postTypes) {
      const used = await this.dataSource
        .getRepository(TermRelationshipEntity)
        .createQueryBuilder('r')
        .innerJoin(PostEntity, 'p', 'p.id = r.objectId')
        .select('DISTINCT r.termTaxonomyId', 'id')
        .where('p.type IN (:...postTypes)', { postTypes })
        .andWhere("p.status <> 'auto-draft'")
        .getRawMany<{ id: number }>();
      const keep = new Set(used.map((u) => Number(u.id)));
      const byTerm = new Map(rows.map((r) => [`${r.taxonomy} ${r.termId}`, r]));
      for (const r of rows.filter((x) => keep.has(x.ttId))) {
        for (
          let p = byTerm.get(`${r.taxonomy} ${r.parent}`), i = 0;
          p && i < 50;
          p = byTerm.get(`${p.taxonomy} ${p.parent}`), i++
        )
          keep.add(p.ttId);
      }
      wanted = rows.filter((r) => keep.has(r.ttId));
    }
    // Parents first: a term waits until its parent has been listed.
    const ordered: ExportTerm[] = [];
    const placed = new Set<string>();
    let pending = wanted;
    const present = new Set(wanted.map((r) => `${r.taxonomy} ${r.termId}`));
    while (pending.length) {
      const next: ExportTerm[] = [];
      for (const t of pending) {
        if (!t.parent || placed.has(`${t.taxonomy} ${t.parent}`) || !present.has(`${t.taxonomy} ${t.parent}`)) {
          ordered.push(t);
          placed.add(`${t.taxonomy} ${t.termId}`);
        } else next.push(t);
      }
      if (next.length === pending.length) {
        ordered.push(...next);
        break;
      }
      pending = next;
    }
    return ordered;
  }

  async metaByTerm(ids: number[]): Promise<Map<number, ExportMeta[]>> {
    return this.metaOf(TermMetaEntity, 'termId', ids);
  }

  async metaByPost(ids: number[]): Promise<Map<number, ExportMeta[]>> {
    return this.metaOf(PostMetaEntity, 'postId', ids);
  }

  async metaByComment(ids: number[]): Promise<Map<number, ExportMeta[]>> {
    return this.metaOf(CommentMetaEntity, 'commentId', ids);
  }

  private async metaOf(entity: new () => object, column: string, ids: number[]): Promise<Map<number, ExportMeta[]>> {
    const out = new Map<number, ExportMeta[]>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = (await this.dataSource
        .getRepository(entity)
        .find({ where: { [column]: In(chunk) }, order: { id: 'ASC' } })) as Array<Record<string, unknown>>;
      for (const r of rows) {
        const owner = Number(r[column]);
        out.set(owner, [...(out.get(owner) ?? []), { key: textOf(r.key), value: textOf(r.value) }]);
      }
    }
    return out;
  }

  async termsByPost(ids: number[]): Promise<Map<number, { taxonomy: string; slug: string; name: string }[]>> {
    const rows = await this.dataSource
      .getRepository(TermRelationshipEntity)
      .createQueryBuilder('r')
      .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
      .innerJoin(TermEntity, 't', 't.id = tt.termId')
      .select(['r.objectId AS object_id', 'tt.taxonomy AS taxonomy', 't.slug AS slug', 't.name AS name'])
      .where('r.objectId IN (:...ids)', { ids })
      .orderBy('t.name', 'ASC')
      .getRawMany<Record<string, unknown>>();
    const out = new Map<number, { taxonomy: string; slug: string; name: string }[]>();
    for (const r of rows) {
      const id = Number(r.object_id);
      out.set(id, [
        ...(out.get(id) ?? []),
        { taxonomy: String(r.taxonomy), slug: String(r.slug), name: String(r.name) },
      ]);
    }
    return out;
  }

  /** The ancestors of the page's hierarchical posts, for their permalinks. */
  async ancestors(page: PostEntity[]): Promise<Map<number, PostEntity>> {
    const known = new Map<number, PostEntity>(page.map((p) => [Number(p.id), p]));
    let wanted = [...new Set(page.map((p) => Number(p.parent)).filter((id) => id > 0 && !known.has(id)))];
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = await this.dataSource
        .getRepository(PostEntity)
        .find({ select: { id: true, name: true, parent: true }, where: { id: In(wanted) } });
      for (const r of rows) known.set(Number(r.id), r);
      wanted = [...new Set(rows.map((r) => Number(r.parent)).filter((id) => id > 0 && !known.has(id)))];
    }
    return known;
  }
}
