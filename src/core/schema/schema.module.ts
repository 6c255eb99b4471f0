import { Module } from '@nestjs/common';
import { IndexRoutes } from './index-routes';
import { SchemaRegistry } from './schema-registry.service';

/** What the API says about itself: route descriptions for OPTIONS, the index and namespace indexes, `context=help`. */
@Module({ providers: [SchemaRegistry, IndexRoutes], exports: [SchemaRegistry] })
export class SchemaModule {}
