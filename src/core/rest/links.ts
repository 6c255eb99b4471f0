import { LinkMap } from './rest-response';

/** A link in its JSON form: attributes first, then `href`. */
export type JsonLink = Record<string, unknown> & { href: string };

/**
 * Turns links into their JSON form with compact relations: a relation under `relBase` becomes `cms:<name>`
 * and a `curies` entry is appended (the reference's `get_compact_response_links`).
 */
export function compactLinks(links: LinkMap, relBase: string, curieName = 'cms'): Record<string, JsonLink[]> {
  const out: Record<string, unknown> = {};
  let compacted: Record<string, JsonLink[]> | null = null;
  for (const [rel, list] of links) {
    const json = new Array<JsonLink>(list.length);
    for (let i = 0; i < list.length; i++) {
      const { href, attributes } = list[i];
      const link: Record<string, unknown> = {};
      for (const name in attributes) if (name !== 'href') link[name] = attributes[name];
      link.href = href;
      json[i] = link as JsonLink;
    }
    if (rel.length > relBase.length && rel.startsWith(relBase))
      (compacted ??= {})[`${curieName}:${rel.slice(relBase.length)}`] = json;
    else out[rel] = json;
  }
  // Compacted relations come after the plain ones, then the curie that expands them.
  if (compacted) {
    for (const rel in compacted) out[rel] = compacted[rel];
    out.curies = [{ name: curieName, href: `${relBase}{rel}`, templated: true }];
  }
  return out as Record<string, JsonLink[]>;
}
