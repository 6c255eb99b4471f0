import { Inject, Injectable } from '@nestjs/common';
import { CapabilityService } from '../auth/capability.service';
import { CurrentUser } from '../auth/current-user';
import { RequestContext } from '../auth/request-context';
import { CMS_NAMESPACE, CMS_OPTIONS, type ResolvedCmsOptions } from '../config/cms-options';
import type { WebhookEventEntity } from '../database/entities/webhook-event.entity';
import { OptionsService } from '../options/options.service';
import { ContentRegistry } from '../registry/content-registry.service';
import { Embedder } from '../rest/embedder.service';
import { RestRequest } from '../rest/rest-request';
import { RestServer } from '../rest/rest-server.service';

/** The `data` of a delivered event: the object's id and type, and its public view when there is one. */
export interface WebhookPayloadData {
  id: number;
  type: string;
  subtype?: string;
  /** The object as an anonymous reader gets it (`view` context); absent when it is not public or is gone. */
  object?: unknown;
}

/**
 * Renders the payload of an outbox event when it is delivered: an internal anonymous `GET` of the object's route
 * (`context=view`) through the API's own server, as a reader would see it. Anything but a 200 (a draft, a private
 * post, a deleted object, a user without published posts, the settings) gives `{ id, type }` only: nothing that is
 * not public leaves the server. The object is shown as it is at delivery, not as it was at the event.
 */
@Injectable()
export class WebhookPayloadRenderer {
  constructor(
    private readonly server: RestServer,
    private readonly embedder: Embedder,
    private readonly caps: CapabilityService,
    private readonly content: ContentRegistry,
    private readonly siteOptions: OptionsService,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  async render(row: WebhookEventEntity): Promise<WebhookPayloadData> {
    const data: WebhookPayloadData = { id: Number(row.objectId), type: row.objectType };
    if (row.objectSubtype) data.subtype = row.objectSubtype;
    const route = row.event.endsWith('.deleted') ? null : this.routeOf(row);
    if (!route) return data;
    const baseUrl = this.options.baseUrl ?? String(await this.siteOptions.get('home', '')).replace(/\/+$/, '');
    const ctx = new RequestContext({
      user: CurrentUser.anonymous(),
      caps: this.caps,
      baseUrl,
      apiPrefix: this.options.routePrefix,
      wire: this.options.wire,
    });
    const req = new RestRequest({ method: 'GET', route, query: { context: 'view' }, headers: {} }, ctx);
    try {
      const response = await this.server.dispatch(req);
      if (response.status !== 200 || response.isError) return data;
      data.object = await this.embedder.responseToData(response, false, ctx);
    } catch {
      // an object that cannot be shown is sent as a reference
    }
    return data;
  }

  /** The object's API route, or `null` when it has none an anonymous reader could read. */
  private routeOf(row: WebhookEventEntity): string | null {
    const id = Number(row.objectId);
    switch (row.objectType) {
      case 'post': {
        const type = this.content.postType(row.objectSubtype);
        return type?.show_in_rest ? `/${CMS_NAMESPACE}/${type.rest_base || type.name}/${id}` : null;
      }
      case 'media':
        return `/${CMS_NAMESPACE}/media/${id}`;
      case 'term': {
        const taxonomy = this.content.taxonomy(row.objectSubtype);
        return taxonomy?.show_in_rest ? `/${CMS_NAMESPACE}/${taxonomy.rest_base || taxonomy.name}/${id}` : null;
      }
      case 'comment':
        return `/${CMS_NAMESPACE}/comments/${id}`;
      case 'user':
        return `/${CMS_NAMESPACE}/users/${id}`;
      default:
        return null;
    }
  }
}
