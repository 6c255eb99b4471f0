import { DataSource } from 'typeorm';
import { PostEntity } from './entities/post.entity';
import { placeholders, rawEntities } from './raw-query';

/** Posts by id, in one prepared statement (in no particular order; ids without a post are left out). */
export function findPostsByIds(dataSource: DataSource, ids: readonly number[]): Promise<PostEntity[]> {
  if (!ids.length) return Promise.resolve([]);
  const metadata = dataSource.getMetadata(PostEntity);
  return rawEntities<PostEntity>(
    dataSource,
    metadata,
    `SELECT * FROM ${metadata.tableName} WHERE ID IN (${placeholders(ids.length)})`,
    [...ids],
  );
}
