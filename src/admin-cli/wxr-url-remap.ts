/** Old attachment URLs → new ones (the WordPress importer's `url_remap`), and their replacement in text. */
export class UrlRemap {
  private readonly map = new Map<string, string>();

  get size(): number {
    return this.map.size;
  }

  /**
   * Notes that the file once at `oldUrl` is now at `newUrl`, and so are its size variants (`photo-150x150.jpg`):
   * the URL without its extension is mapped too, as `process_attachment()` does.
   */
  remember(oldUrl: string, newUrl: string): void {
    if (!oldUrl || oldUrl === newUrl) return;
    this.map.set(oldUrl, newUrl);
    const strip = (url: string) => url.replace(/\.[^./?#]+(?=$|[?#])/, '');
    const from = strip(oldUrl);
    const to = strip(newUrl);
    if (from !== oldUrl && to !== newUrl) this.map.set(from, to);
  }

  /**
   * Replaces every old URL in `text` by its new one (`backfill_attachment_urls()`): in one pass, the longest old URL
   * first at each place, so that a new URL is never rewritten again.
   */
  rewrite(text: string): string {
    if (!this.map.size) return text;
    const keys = [...this.map.keys()].sort((a, b) => b.length - a.length);
    const pattern = new RegExp(keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
    return text.replace(pattern, (found) => this.map.get(found) ?? found);
  }
}
