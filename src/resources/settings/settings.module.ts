import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionEntity } from '../../core/database/cms-entities';
import { SettingsHandlers } from './settings.handlers';
import { SettingsResource } from './settings.resource';

/** The site's settings (`settings`): options exposed with `show_in_rest`. */
@Module({})
export class SettingsModule {
  /** `internals`: the CmsInternalsModule instance of the API; `dataSourceName`: the host's DataSource. */
  static register(internals: DynamicModule, dataSourceName?: string): DynamicModule {
    return {
      module: SettingsModule,
      imports: [internals, TypeOrmModule.forFeature([OptionEntity], dataSourceName)],
      providers: [SettingsResource, SettingsHandlers],
      exports: [SettingsResource],
    };
  }
}
