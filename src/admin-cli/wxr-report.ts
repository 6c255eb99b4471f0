/** What became of one record of the file. */
export type ImportOutcome = 'created' | 'skipped' | 'failed';

/** One record of the file in the report: what it is, what became of it, and why. */
export interface ImportEntry {
  /** `author`, `term`, a post type (`post`, `page`, `attachment`, `nav_menu_item`, ...), `comment`, `menu location`. */
  kind: string;
  /** How the record is named: its title, login, slug, ... */
  label: string;
  outcome: ImportOutcome;
  /** Its id in the file, when it has one. */
  fileId?: number;
  /** Its id here (the one created, or the one it was matched with); absent in a dry run and on failure. */
  id?: number;
  /** Why it was skipped or failed, or a note on how it was created. */
  reason?: string;
}

/** Created / skipped / failed counts of one kind. */
export interface ImportCounts {
  created: number;
  skipped: number;
  failed: number;
}

/** The JSON form of the report (`--report <file.json>`). */
export interface ImportReportJson {
  file: string;
  dryRun: boolean;
  ok: boolean;
  counts: Record<string, ImportCounts>;
  items: ImportEntry[];
}

/** Kinds shown first in the counts, in this order; post types follow in the order met. */
const FIRST_KINDS = ['author', 'term', 'menu location'];
const LAST_KINDS = ['comment', 'pingback', 'trackback'];

/**
 * Every record of an import, created, skipped (with the reason) or failed (with the error), and the counts per kind.
 * A failure is also told at once to `onFailure` (a line for stderr).
 */
export class ImportReport {
  readonly entries: ImportEntry[] = [];

  constructor(
    private readonly onFailure: (line: string) => void = () => undefined,
    readonly dryRun = false,
  ) {}

  created(kind: string, label: string, ids: { fileId?: number; id?: number } = {}, note?: string): void {
    this.add({ kind, label, outcome: 'created', ...ids, ...(note ? { reason: note } : {}) });
  }

  skipped(kind: string, label: string, reason: string, ids: { fileId?: number; id?: number } = {}): void {
    this.add({ kind, label, outcome: 'skipped', ...ids, reason });
  }

  failed(kind: string, label: string, reason: string, ids: { fileId?: number } = {}): void {
    this.add({ kind, label, outcome: 'failed', ...ids, reason });
    this.onFailure(`Failed: ${kind} ${label}${ids.fileId ? ` (file id ${ids.fileId})` : ''}: ${reason}`);
  }

  /** A note that is no record's outcome (a reference left pointing at something not in the file). */
  note(line: string): void {
    this.onFailure(`Note: ${line}`);
  }

  private add(entry: ImportEntry): void {
    // A dry run writes nothing: the ids it met are real, the ones it would create are not shown.
    if (entry.id !== undefined && entry.id < 0) delete entry.id;
    this.entries.push(entry);
  }

  get ok(): boolean {
    return !this.entries.some((e) => e.outcome === 'failed');
  }

  /** Counts per kind: authors, terms and menu locations first, then post types as met, then comments. */
  counts(): Record<string, ImportCounts> {
    const kinds = new Set(this.entries.map((e) => e.kind));
    const order = [
      ...FIRST_KINDS.filter((k) => kinds.has(k)),
      ...[...kinds].filter((k) => !FIRST_KINDS.includes(k) && !LAST_KINDS.includes(k)),
      ...LAST_KINDS.filter((k) => kinds.has(k)),
    ];
    const counts: Record<string, ImportCounts> = {};
    for (const kind of order) counts[kind] = { created: 0, skipped: 0, failed: 0 };
    for (const e of this.entries) counts[e.kind][e.outcome]++;
    return counts;
  }

  /** One line per record: `created  post "Hello" (file id 12, id 12)`, `skipped  ...: the reason`. */
  itemLines(): string[] {
    return this.entries.map((e) => {
      const ids = [e.fileId ? `file id ${e.fileId}` : '', e.id !== undefined ? `id ${e.id}` : '']
        .filter(Boolean)
        .join(', ');
      return `${e.outcome.padEnd(7)}  ${e.kind} ${e.label}${ids ? ` (${ids})` : ''}${e.reason ? `: ${e.reason}` : ''}`;
    });
  }

  /** The counts, a line per kind: `post: 3 created, 1 skipped, 0 failed`. */
  countLines(): string[] {
    const verb = this.dryRun ? 'to create' : 'created';
    return Object.entries(this.counts()).map(
      ([kind, c]) => `${kind}: ${c.created} ${verb}, ${c.skipped} skipped, ${c.failed} failed`,
    );
  }

  toJSON(file: string): ImportReportJson {
    return { file, dryRun: this.dryRun, ok: this.ok, counts: this.counts(), items: this.entries };
  }
}
