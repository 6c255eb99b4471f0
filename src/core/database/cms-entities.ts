import { CommentMetaEntity } from './entities/comment-meta.entity';
import { CommentEntity } from './entities/comment.entity';
import { OptionEntity } from './entities/option.entity';
import { PostMetaEntity } from './entities/post-meta.entity';
import { PostEntity } from './entities/post.entity';
import { TermMetaEntity } from './entities/term-meta.entity';
import { TermRelationshipEntity } from './entities/term-relationship.entity';
import { TermTaxonomyEntity } from './entities/term-taxonomy.entity';
import { TermEntity } from './entities/term.entity';
import { UserMetaEntity } from './entities/user-meta.entity';
import { UserEntity } from './entities/user.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEventEntity } from './entities/webhook-event.entity';
import { WebhookEntity } from './entities/webhook.entity';

export {
  CommentEntity,
  CommentMetaEntity,
  OptionEntity,
  PostEntity,
  PostMetaEntity,
  TermEntity,
  TermMetaEntity,
  TermRelationshipEntity,
  TermTaxonomyEntity,
  UserEntity,
  UserMetaEntity,
  WebhookDeliveryEntity,
  WebhookEntity,
  WebhookEventEntity,
};

/**
 * The entities of the WordPress tables (and of the webhooks' own tables, `cms_webhook*`), for `TypeOrmModule.forFeature(CMS_ENTITIES)` or a host's DataSource
 * `entities`. Table names get the DataSource's `entityPrefix` (the WordPress table prefix, e.g. `wp_`).
 */
export const CMS_ENTITIES = [
  PostEntity,
  PostMetaEntity,
  UserEntity,
  UserMetaEntity,
  TermEntity,
  TermMetaEntity,
  TermTaxonomyEntity,
  TermRelationshipEntity,
  CommentEntity,
  CommentMetaEntity,
  OptionEntity,
  WebhookEntity,
  WebhookEventEntity,
  WebhookDeliveryEntity,
];
