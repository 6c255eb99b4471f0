import { DataSource } from 'typeorm';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { PostMetaEntity } from '../../src/core/database/entities/post-meta.entity';
import { TermRelationshipEntity } from '../../src/core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../src/core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../src/core/database/entities/term.entity';

let sequence = 0;

/** Writes a post row the way WordPress stores it (both date columns, GUID, slug), straight into the tables. */
export async function createPost(dataSource: DataSource, fields: Partial<PostEntity> = {}): Promise<PostEntity> {
  sequence++;
  const date = fields.date ?? `2024-01-${String((sequence % 28) + 1).padStart(2, '0')} 10:00:00`;
  const status = fields.status ?? 'publish';
  const saved = await dataSource.getRepository(PostEntity).save({
    author: 1,
    date,
    dateGmt: status === 'draft' || status === 'pending' ? '0000-00-00 00:00:00' : date,
    content: `Content of post ${sequence}.`,
    title: `Post ${sequence}`,
    excerpt: '',
    status,
    commentStatus: 'open',
    pingStatus: 'open',
    password: '',
    name: status === 'draft' ? '' : `post-${sequence}`,
    toPing: '',
    pinged: '',
    modified: date,
    modifiedGmt: date,
    contentFiltered: '',
    parent: 0,
    guid: `http://example.org/?p=${sequence}`,
    menuOrder: 0,
    type: 'post',
    mimeType: '',
    commentCount: 0,
    ...fields,
  });
  return saved;
}

/** Creates a term of a taxonomy and returns its term id. */
export async function createTerm(dataSource: DataSource, taxonomy: string, name: string, parent = 0): Promise<number> {
  const term = await dataSource
    .getRepository(TermEntity)
    .save({ name, slug: name.toLowerCase().replace(/\W+/g, '-'), group: 0 });
  await dataSource
    .getRepository(TermTaxonomyEntity)
    .save({ termId: term.id, taxonomy, description: '', parent, count: 0 });
  return term.id;
}

/** Assigns terms (by term id) to a post. */
export async function assignTerms(
  dataSource: DataSource,
  postId: number,
  taxonomy: string,
  termIds: number[],
): Promise<void> {
  for (const termId of termIds) {
    const tt = await dataSource.getRepository(TermTaxonomyEntity).findOneByOrFail({ termId, taxonomy });
    await dataSource
      .getRepository(TermRelationshipEntity)
      .save({ objectId: postId, termTaxonomyId: tt.id, termOrder: 0 });
  }
}

export async function setPostMeta(dataSource: DataSource, postId: number, key: string, value: string): Promise<void> {
  await dataSource.getRepository(PostMetaEntity).save({ postId, key, value });
}
