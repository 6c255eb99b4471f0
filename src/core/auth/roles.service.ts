import { Injectable } from '@nestjs/common';
import { OptionsService } from '../options/options.service';
import { TablePrefix } from '../database/table-prefix';
import { ContentRegistry } from '../registry/content-registry.service';

/** A role as WordPress stores it in the `<prefix>user_roles` option. */
export interface RoleDefinition {
  name: string;
  capabilities: Record<string, boolean>;
}

/** Role definitions of the site, read from the `<prefix>user_roles` option (so existing WordPress roles work). */
@Injectable()
export class RolesService {
  constructor(
    private readonly options: OptionsService,
    private readonly prefix: TablePrefix,
    private readonly content: ContentRegistry,
  ) {}

  /** The site's roles: those stored in the option, and those extensions register (a stored one wins). */
  async roles(): Promise<Record<string, RoleDefinition>> {
    const value = await this.options.get<Record<string, RoleDefinition> | null>(`${this.prefix.value}user_roles`, null);
    const stored = value && typeof value === 'object' ? value : {};
    const registered = this.content.registeredRoles();
    const roles = Object.keys(registered).length ? { ...registered, ...stored } : stored;
    this.known = Object.keys(roles);
    return roles;
  }

  /** Roles kept in code (registered by extensions). */
  registeredRoles(): Record<string, RoleDefinition> {
    return this.content.registeredRoles();
  }

  /** The role names as last read (`null` before the first read): for checks that cannot wait for the database. */
  known: string[] | null = null;

  /** The union of the capabilities granted by the roles, plus each role name as a capability (as WordPress does). */
  async capabilitiesOf(roleNames: readonly string[]): Promise<Record<string, boolean>> {
    return capabilitiesOf(await this.roles(), roleNames);
  }
}

/** The union of the capabilities the named roles grant among `roles`, plus each role name as a capability. */
export function capabilitiesOf(
  roles: Record<string, RoleDefinition>,
  roleNames: readonly string[],
): Record<string, boolean> {
  const caps: Record<string, boolean> = {};
  for (const role of roleNames) {
    const def = roles[role];
    if (!def) continue;
    caps[role] = true;
    for (const [cap, granted] of Object.entries(def.capabilities ?? {})) if (granted) caps[cap] = true;
  }
  return caps;
}
