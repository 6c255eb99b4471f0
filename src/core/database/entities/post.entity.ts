import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ZERO_DATE } from '../mysql-date';

/**
 * A row of WordPress's `{prefix}posts` table (posts, pages, attachments, revisions, menu items, ...).
 *
 * Dates are `'YYYY-MM-DD HH:MM:SS'` strings (`datetime` in WordPress; `'0000-00-00 00:00:00'` when unset).
 * Text columns are declared `text` so that the entity is valid on both drivers; the real types
 * (`longtext`, `varchar(n)`, ...) come from the migration, as `synchronize` is never used. Defaults mirror
 * WordPress's; `NOT NULL` text columns that have none in WordPress default to `''` (what MySQL writes for them
 * outside strict mode), so that partial inserts behave the same on SQLite.
 */
@Entity('posts')
@Index('post_name', ['name']) // post_name(191)
@Index('type_status_date', ['type', 'status', 'date', 'id'])
@Index('post_parent', ['parent'])
@Index('post_author', ['author'])
export class PostEntity {
  @PrimaryGeneratedColumn({ name: 'ID', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'post_author', type: 'bigint', unsigned: true, default: 0 })
  author!: number;

  @Column({ name: 'post_date', type: 'varchar', length: 19, default: ZERO_DATE })
  date!: string;

  @Column({ name: 'post_date_gmt', type: 'varchar', length: 19, default: ZERO_DATE })
  dateGmt!: string;

  @Column({ name: 'post_content', type: 'text', default: '' })
  content!: string;

  @Column({ name: 'post_title', type: 'text', default: '' })
  title!: string;

  @Column({ name: 'post_excerpt', type: 'text', default: '' })
  excerpt!: string;

  @Column({ name: 'post_status', type: 'varchar', length: 20, default: 'publish' })
  status!: string;

  @Column({ name: 'comment_status', type: 'varchar', length: 20, default: 'open' })
  commentStatus!: string;

  @Column({ name: 'ping_status', type: 'varchar', length: 20, default: 'open' })
  pingStatus!: string;

  @Column({ name: 'post_password', type: 'varchar', length: 255, default: '' })
  password!: string;

  /** The slug. */
  @Column({ name: 'post_name', type: 'varchar', length: 200, default: '' })
  name!: string;

  @Column({ name: 'to_ping', type: 'text', default: '' })
  toPing!: string;

  @Column({ name: 'pinged', type: 'text', default: '' })
  pinged!: string;

  @Column({ name: 'post_modified', type: 'varchar', length: 19, default: ZERO_DATE })
  modified!: string;

  @Column({ name: 'post_modified_gmt', type: 'varchar', length: 19, default: ZERO_DATE })
  modifiedGmt!: string;

  @Column({ name: 'post_content_filtered', type: 'text', default: '' })
  contentFiltered!: string;

  @Column({ name: 'post_parent', type: 'bigint', unsigned: true, default: 0 })
  parent!: number;

  @Column({ name: 'guid', type: 'varchar', length: 255, default: '' })
  guid!: string;

  @Column({ name: 'menu_order', type: 'int', default: 0 })
  menuOrder!: number;

  @Column({ name: 'post_type', type: 'varchar', length: 20, default: 'post' })
  type!: string;

  @Column({ name: 'post_mime_type', type: 'varchar', length: 100, default: '' })
  mimeType!: string;

  @Column({ name: 'comment_count', type: 'bigint', default: 0 })
  commentCount!: number;
}
