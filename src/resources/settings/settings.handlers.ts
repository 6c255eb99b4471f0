import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { SettingsResource } from './settings.resource';

const schema = (h: SettingsHandlers) => h.settings.getPublicItemSchema();

/** Routes of `settings` (mirrors WP_REST_Settings_Controller::register_routes). */
@Injectable()
export class SettingsHandlers {
  constructor(readonly settings: SettingsResource) {}

  @RestRoute('/settings', { methods: Methods.READABLE, args: (h: SettingsHandlers) => h.settings.readArgs(), schema })
  @Allow.cap('manage_options')
  get(req: RestRequest) {
    return this.settings.getItem(req);
  }

  @RestRoute('/settings', { methods: Methods.EDITABLE, args: (h: SettingsHandlers) => h.settings.updateArgs(), schema })
  @Allow.cap('manage_options')
  update(req: RestRequest) {
    return this.settings.updateItem(req);
  }
}
