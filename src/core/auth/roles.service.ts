import { Injectable } from '@nestjs/common';
import { OptionsService } from '../options/options.service';
import { TablePrefix } from '../database/table-prefix';

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
  ) {}

  async roles(): Promise<Record<string, RoleDefinition>> {
    const value = await this.options.get<Record<string, RoleDefinition> | null>(`${this.prefix.value}user_roles`, null);
    return value && typeof value === 'object' ? value : {};
  }

  /** The union of the capabilities granted by the roles, plus each role name as a capability (as WordPress does). */
  async capabilitiesOf(roleNames: readonly string[]): Promise<Record<string, boolean>> {
    return capabilitiesOf(await this.roles(), roleNames);
  }
}

/** The union of the capabilities the named roles grant among `roles`, plus each role name as a capability. */
export function capabilitiesOf(roles: Record<string, RoleDefinition>, roleNames: readonly string[]): Record<string, boolean> {
  const caps: Record<string, boolean> = {};
  for (const role of roleNames) {
    const def = roles[role];
    if (!def) continue;
    caps[role] = true;
    for (const [cap, granted] of Object.entries(def.capabilities ?? {})) if (granted) caps[cap] = true;
  }
  return caps;
}
