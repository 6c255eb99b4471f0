import { Module } from '@nestjs/common';
import { SettingsHandlers } from './settings.handlers';
import { SettingsResource } from './settings.resource';

/** The site's settings (`settings`): options exposed with `show_in_rest`. */
@Module({ providers: [SettingsResource, SettingsHandlers], exports: [SettingsResource] })
export class SettingsModule {}
