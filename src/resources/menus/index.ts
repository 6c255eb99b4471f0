// The menus resource's public surface: the menu locations extensions register (`register_nav_menus()`). Anything
// else in this folder is its own.
export { MenuLocations } from './menu-locations';
