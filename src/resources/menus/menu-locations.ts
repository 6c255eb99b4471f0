import { Injectable } from '@nestjs/common';

/**
 * The menu locations the site has (`register_nav_menus()`): themes register them in WordPress; here an extension
 * may, from its `onModuleInit`. None by default, as WordPress 6.1 without a theme that registers some.
 *
 * @example
 * constructor(locations: MenuLocations) { locations.register({ primary: 'Primary menu' }); }
 */
@Injectable()
export class MenuLocations {
  private readonly locations = new Map<string, string>();

  /** Registers locations: name → description (a name registered again takes the new description). */
  register(locations: Record<string, string>): void {
    for (const [name, description] of Object.entries(locations)) this.locations.set(name, String(description));
  }

  /** `unregister_nav_menu()`. */
  unregister(name: string): boolean {
    return this.locations.delete(name);
  }

  /** `get_registered_nav_menus()`: name → description, in registration order. */
  registered(): ReadonlyMap<string, string> {
    return this.locations;
  }

  has(name: string): boolean {
    return this.locations.has(name);
  }
}
