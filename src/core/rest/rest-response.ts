/** A link of a response: its target and attributes (`embeddable`, `taxonomy`, ...). */
export interface Link {
  href: string;
  attributes: Record<string, unknown>;
}

/** Links by relation. */
export type LinkMap = Map<string, Link[]>;

/** A response of the API before it is written to HTTP: data, status, headers and links. */
export class RestResponse {
  headers: Record<string, string> = {};
  links: LinkMap = new Map();
  matchedRoute?: string;
  /** For a 500 answered in place of an error no handler expected: that error (never sent to the client). */
  unexpected?: unknown;

  constructor(
    public data: unknown = null,
    public status = 200,
  ) {}

  /** Sets a header; with `replace` false an existing value is extended with `, value`. */
  header(name: string, value: string, replace = true): this {
    const existing = Object.keys(this.headers).find((k) => k.toLowerCase() === name.toLowerCase());
    if (existing && !replace) this.headers[existing] = `${this.headers[existing]}, ${value}`;
    else {
      if (existing) delete this.headers[existing];
      this.headers[name] = value;
    }
    return this;
  }

  /** Adds a `Link` header entry. */
  linkHeader(rel: string, url: string): this {
    return this.header('Link', `<${url}>; rel="${rel}"`, false);
  }

  /** Adds a link; its attributes object is kept as given (without an `href` key). */
  addLink(rel: string, href: string, attributes: Record<string, unknown> = {}): this {
    let list = this.links.get(rel);
    if (!list) this.links.set(rel, (list = []));
    // As in the reference, an `href` among the attributes never overrides the link's own.
    if ('href' in attributes) {
      const { href: _ignored, ...rest } = attributes;
      attributes = rest;
    }
    list.push({ href, attributes });
    return this;
  }

  addLinks(links: LinkMap): this {
    for (const [rel, list] of links) for (const link of list) this.addLink(rel, link.href, link.attributes);
    return this;
  }

  get isError(): boolean {
    return this.status >= 400;
  }
}

/** Builds a LinkMap from `{ rel: {href, ...attrs} | [{href, ...attrs}] }`. */
export function linkMap(
  input: Record<string, { href: string; [k: string]: unknown } | Array<{ href: string; [k: string]: unknown }>>,
): LinkMap {
  const map: LinkMap = new Map();
  for (const [rel, value] of Object.entries(input)) {
    const list = Array.isArray(value) ? value : [value];
    map.set(
      rel,
      list.map(({ href, ...attributes }) => ({ href, attributes })),
    );
  }
  return map;
}
