import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { SettingsHandlers } from './settings.handlers';
import { SettingsResource } from './settings.resource';

/** The site's settings (`settings`): options exposed with `show_in_rest`. */
@Module({
  imports: [CmsInternalsModule],
  providers: [SettingsResource, SettingsHandlers],
  exports: [SettingsResource],
})
export class SettingsModule {}
