import { LinkMap } from './rest-response';

/** A link in its JSON form: attributes first, then `href`. */
export type JsonLink = Record<string, unknown> & { href: string };

/**
 * Turns links into their JSON form with compact relations: a relation under `relBase` becomes `cms:<name>`
 * and a `curies` entry is appended (the reference's `get_compact_response_links`).
 */
export function compactLinks(links: LinkMap, relBase: string, curieName = 'cms'): Record<string, JsonLink[]> {
  const plain: Record<string, JsonLink[]> = {};
  const compacted: Record<string, JsonLink[]> = {};
  for (const [rel, list] of links) {
    const json = list.map((l) => {
      const link: Record<string, unknown> = {};
      for (const name in l.attributes) if (name !== 'href') link[name] = l.attributes[name];
      link.href = l.href;
      return link as JsonLink;
    });
    if (rel.startsWith(relBase) && rel.length > relBase.length) compacted[`${curieName}:${rel.slice(relBase.length)}`] = json;
    else plain[rel] = json;
  }
  const out: Record<string, unknown> = { ...plain, ...compacted };
  if (Object.keys(compacted).length) {
    out.curies = [{ name: curieName, href: `${relBase}{rel}`, templated: true }];
  }
  return out as Record<string, JsonLink[]>;
}
