import { UserEntity } from '../../core/database/entities/user.entity';
import { RestException } from '../../core/errors/rest.exception';
import { RestRequest } from '../../core/rest/rest-request';
import { UsersService } from './users.service';
import type { UserIdArgs } from './users.schema';

/**
 * The user of the route, through a request-wide loader (embedded authors of a page of posts cost one query). The id is
 * converted here (see {@link UserIdArgs}).
 */
export async function loadUser(req: RestRequest, users: UsersService): Promise<UserEntity> {
  const user = await req.ctx
    .loader<number, UserEntity | null>('users', async (ids) => {
      const found = await users.findByIds([...ids]);
      return ids.map((id) => found.find((u) => u.id === id) ?? null);
    })
    .load(Number(req.args<UserIdArgs>().id));
  if (!user) throw new RestException('rest_user_invalid_id', 'Invalid resource id.', 404);
  return user;
}
