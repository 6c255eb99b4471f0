import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';

/** Navigation menus: `menus` (the `nav_menu` taxonomy), `menu-items` (`nav_menu_item` posts) and `menu-locations`. */
@Module({
  imports: [CmsInternalsModule],
  providers: [],
})
export class MenusModule {}
