import { DataSource, In } from 'typeorm';
import { OptionEntity } from '../database/entities/option.entity';
import { UserEntity } from '../database/entities/user.entity';

/** The address as compared: without trailing slashes. */
const bare = (url: string) => url.trim().replace(/\/+$/, '');

/**
 * The start-up warning when the stored site address (`home`, `siteurl`) is not `baseUrl` (`CMS_BASE_URL`): post
 * links, GUIDs and media URLs are written with the stored address while `_links` follow `baseUrl`. `null` when they
 * agree, when `baseUrl` is not set (links then follow each request's Host), or when the site is not installed.
 */
export async function siteUrlWarning(dataSource: DataSource, baseUrl: string | undefined): Promise<string | null> {
  if (!baseUrl) return null;
  const rows = await dataSource
    .getRepository(OptionEntity)
    .find({ select: { name: true, value: true }, where: { name: In(['home', 'siteurl']) } });
  const stored = Object.fromEntries(rows.map((r) => [r.name, bare(r.value)]));
  const wanted = bare(baseUrl);
  const differing = (['home', 'siteurl'] as const).filter((name) => stored[name] && stored[name] !== wanted);
  if (!differing.length) return null;
  const what = differing.map((name) => `${name} ${stored[name]}`).join(', ');
  return (
    `The stored site address (${what}) is not CMS_BASE_URL (${wanted}): post links, GUIDs and media URLs keep the ` +
    `stored address while _links use ${wanted}. To move the site, run "npm run cms -- site-url set ${wanted}" ` +
    `(add --search-replace to rewrite the old address in content and meta); see docs/configuration.md.`
  );
}

/** The hint logged when the database has no user: the two ways to create an administrator. */
export const NO_USERS_HINT =
  'No users yet: create an administrator with "npm run cms -- user create <login> <email> --role administrator" ' +
  '(prints a generated password), or start once with CMS_ADMIN_USER and CMS_ADMIN_PASSWORD set (the initialAdmin ' +
  'option when embedded), which creates it on a database without users.';

/** Whether the users table is empty. */
export async function hasNoUsers(dataSource: DataSource): Promise<boolean> {
  return !(await dataSource.getRepository(UserEntity).exists());
}
