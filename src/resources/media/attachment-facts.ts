import type { PostsService } from '../posts';
import { textOf } from '../../core/formatting/php-serialize';
import type { RestRequest } from '../../core/rest/rest-request';

/** An attachment's stored facts (`_wp_attached_file`, `_wp_attachment_metadata`, `_wp_attachment_image_alt`). */
export interface AttachmentFacts {
  file: string;
  metadata: Record<string, unknown> | null;
  alt: string;
}

export const ATTACHED_FILE = '_wp_attached_file';
export const METADATA = '_wp_attachment_metadata';
export const ALT = '_wp_attachment_image_alt';

/** Stored facts of attachments, batched across a request and its embedded sub-requests. */
export function factsLoader(req: RestRequest, posts: PostsService) {
  return req.ctx.loader<number, AttachmentFacts>('attachment-facts', async (ids) => {
    const meta = await posts.metaOf([...ids], [ATTACHED_FILE, METADATA, ALT]);
    return ids.map((id) => {
      const m = meta.get(id) ?? {};
      const metadata = m[METADATA]?.[0];
      return {
        file: textOf(m[ATTACHED_FILE]?.[0]),
        metadata:
          metadata && typeof metadata === 'object' && !Array.isArray(metadata)
            ? (metadata as Record<string, unknown>)
            : null,
        alt: textOf(m[ALT]?.[0]),
      };
    });
  });
}

/** The folder of an uploaded file's path, with its trailing `/` (`''` at the uploads root). */
export function folderOf(file: string): string {
  return file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
}
