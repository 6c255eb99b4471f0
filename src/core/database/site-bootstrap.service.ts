import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../cms-options';
import { CMS_DATA_SOURCE } from './cms-data-source';
import { afterDataSourceInit } from './data-source-options';
import { installSite } from './site-install';
import { TablePrefix } from './table-prefix';

/**
 * Brings the database up to date when the module starts: runs the schema migrations (which never alter
 * existing WordPress tables) and, on an empty database, writes the default site (options, roles, the
 * default category). Disabled with `runMigrations: false`.
 */
@Injectable()
export class SiteBootstrapService implements OnModuleInit {
  private readonly logger = new Logger('CmsBootstrap');

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
    private readonly prefix: TablePrefix,
  ) {}

  async onModuleInit(): Promise<void> {
    await afterDataSourceInit(this.dataSource);
    if (!this.options.runMigrations) return;
    const ran = await this.dataSource.runMigrations({ transaction: 'each' });
    if (ran.length) this.logger.log(`Applied ${ran.length} migration(s): ${ran.map((m) => m.name).join(', ')}`);
    const installed = await installSite(this.dataSource, {
      tablePrefix: this.prefix.value,
      siteUrl: this.options.siteUrl ?? this.options.baseUrl ?? 'http://localhost:3000',
      title: this.options.siteTitle,
    });
    if (installed) this.logger.log('Installed a new site with default options, roles and the default category.');
  }
}
