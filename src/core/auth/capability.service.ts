import { Injectable } from '@nestjs/common';
import { CurrentUser } from './current-user';

/**
 * Answers "may this user do that?". Meta capabilities (`edit_post`, `read_post`, ...) are mapped to primitive ones
 * the way the reference's `map_meta_cap` does; primitive ones are looked up in the user's capabilities.
 * Every permission decision of the API goes through here.
 */
@Injectable()
export class CapabilityService {
  private readonly metaMappers = new Map<string, (user: CurrentUser, ...args: unknown[]) => Promise<string[]> | string[]>();

  constructor() {
    // Taxonomy meta capabilities of the built-in taxonomies, as in the reference's map_meta_cap.
    for (const cap of ['manage_post_tags', 'edit_categories', 'edit_post_tags', 'delete_categories', 'delete_post_tags']) {
      this.registerMetaCap(cap, () => ['manage_categories']);
    }
    for (const cap of ['assign_categories', 'assign_post_tags']) this.registerMetaCap(cap, () => ['edit_posts']);
  }

  /**
   * Registers how a meta capability maps to primitive ones.
   *
   * @example
   * caps.registerMetaCap('edit_post', async (user, postId) => ['edit_others_posts']);
   */
  registerMetaCap(cap: string, mapper: (user: CurrentUser, ...args: unknown[]) => Promise<string[]> | string[]): void {
    this.metaMappers.set(cap, mapper);
  }

  async userCan(user: CurrentUser, cap: string, ...args: unknown[]): Promise<boolean> {
    const mapper = this.metaMappers.get(cap);
    const required = mapper ? await mapper(user, ...args) : [cap];
    if (required.includes('do_not_allow')) return false;
    return required.every((c) => user.hasCap(c));
  }
}
