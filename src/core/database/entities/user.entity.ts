import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ZERO_DATE } from '../mysql-date';

/** A row of WordPress's `{prefix}users` table (single-site flavour). `registered` is a datetime string. */
@Entity('users')
@Index('user_login_key', ['login'])
@Index('user_nicename', ['nicename'])
@Index('user_email', ['email'])
export class UserEntity {
  @PrimaryGeneratedColumn({ name: 'ID', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'user_login', type: 'varchar', length: 60, default: '' })
  login!: string;

  /** Password hash (phpass `$P$...`, bcrypt, or `$wp$...`). */
  @Column({ name: 'user_pass', type: 'varchar', length: 255, default: '' })
  pass!: string;

  @Column({ name: 'user_nicename', type: 'varchar', length: 50, default: '' })
  nicename!: string;

  @Column({ name: 'user_email', type: 'varchar', length: 100, default: '' })
  email!: string;

  @Column({ name: 'user_url', type: 'varchar', length: 100, default: '' })
  url!: string;

  @Column({ name: 'user_registered', type: 'varchar', length: 19, default: ZERO_DATE })
  registered!: string;

  @Column({ name: 'user_activation_key', type: 'varchar', length: 255, default: '' })
  activationKey!: string;

  @Column({ name: 'user_status', type: 'int', default: 0 })
  status!: number;

  @Column({ name: 'display_name', type: 'varchar', length: 250, default: '' })
  displayName!: string;
}
