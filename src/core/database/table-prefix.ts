import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { CMS_DATA_SOURCE } from './cms-data-source';

/**
 * The table prefix in use (`cms_`, `wp_`, ...). It also prefixes WordPress's per-site keys such as the
 * `<prefix>user_roles` option and the `<prefix>capabilities` user meta.
 */
@Injectable()
export class TablePrefix {
  readonly value: string;

  constructor(@Inject(CMS_DATA_SOURCE) dataSource: DataSource, @Inject(CMS_OPTIONS) options: ResolvedCmsOptions) {
    const fromDataSource = (dataSource.options as { entityPrefix?: string }).entityPrefix;
    if (options.tablePrefix !== undefined && fromDataSource !== undefined && options.tablePrefix !== fromDataSource) {
      throw new Error(
        `CmsModule tablePrefix "${options.tablePrefix}" differs from the DataSource entityPrefix "${fromDataSource}"; set them the same.`,
      );
    }
    this.value = options.tablePrefix ?? fromDataSource ?? '';
  }

  /** The user meta key of a user's roles and capabilities (`<prefix>capabilities`). */
  get capabilitiesKey(): string {
    return `${this.value}capabilities`;
  }
}
