import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A row of WordPress's `{prefix}options` table. `value` is stored as by `maybe_serialize()`; `autoload` is
 * `'yes'`/`'no'` (WordPress 6.6+ also writes `'on'`, `'off'`, `'auto'`, ...).
 */
@Entity('options')
@Index('option_name', ['name'], { unique: true })
@Index('autoload', ['autoload'])
export class OptionEntity {
  @PrimaryGeneratedColumn({ name: 'option_id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'option_name', type: 'varchar', length: 191, default: '' })
  name!: string;

  @Column({ name: 'option_value', type: 'text', default: '' })
  value!: string;

  @Column({ name: 'autoload', type: 'varchar', length: 20, default: 'yes' })
  autoload!: string;
}
