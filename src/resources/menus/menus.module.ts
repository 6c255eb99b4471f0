import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { PostsModule } from '../posts';
import { TermsModule } from '../terms';
import { MenuItemsResource } from './menu-items.resource';
import { MenuLocations } from './menu-locations';
import { MenuLocationsResource } from './menu-locations.resource';
import { MenusHandlers } from './menus.handlers';
import { MenusResource } from './menus.resource';
import { MenusService } from './menus.service';

/** Navigation menus: `menus` (the `nav_menu` taxonomy), `menu-items` (`nav_menu_item` posts) and `menu-locations`. */
@Module({
  imports: [CmsInternalsModule, PostsModule, TermsModule],
  providers: [MenuLocations, MenusService, MenusResource, MenuItemsResource, MenuLocationsResource, MenusHandlers],
  exports: [MenuLocations],
})
export class MenusModule {}
