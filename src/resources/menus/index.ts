// The menus resource's public surface: its module, and the menu locations extensions register
// (`register_nav_menus()`). Anything else in this folder is its own.
export { MenusModule } from './menus.module';
export { MenuLocations } from './menu-locations';
