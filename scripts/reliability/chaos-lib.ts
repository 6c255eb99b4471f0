/**
 * The write load, the client-side ledger and the checks of the durability suite (`npm run chaos`, `npm run writers`
 * and test/e2e/chaos.e2e-spec.ts).
 *
 * - {@link startCmsServer} runs the built server (`node dist/main`) in a process group of its own, so that
 *   {@link CmsServer.kill} can SIGKILL it (and its cluster workers) at any moment.
 * - {@link Workload} runs writers that create, update, trash and delete posts (with categories and tags), terms,
 *   comments (with status changes) and media (small PNGs made by sharp), each through the API as an administrator.
 *   Every 2xx answer goes into the {@link Ledger}: what the client was told is now stored. A write without an answer
 *   (the server killed under it) or with a 5xx leaves its object "uncertain": it may or may not have happened.
 * - {@link checkLedger} reads every object back and compares it with the ledger; {@link checkDatabase} looks into the
 *   database and the upload directory for what is half-written: posts without their category, relationships or
 *   comments of missing rows, term counts and comment counts that differ from a recount, duplicate slugs, files
 *   without rows and rows without files.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import * as mysql from 'mysql2/promise';
import sharp from 'sharp';
import { prng } from '../../bench/seed';

export const ROOT = join(__dirname, '..', '..');
export const MAIN = join(ROOT, 'dist', 'main.js');
const API = '/cms-json/cms/v2';
export const ADMIN = { user: 'chaos', password: 'chaos-password-1' };

// ---------------------------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------------------------

export interface CmsServer {
  child: ChildProcess;
  base: string;
  output(): string;
  /** SIGKILL to the whole process group (the primary and its cluster workers); resolves once the primary is gone. */
  kill(): Promise<void>;
  /** SIGTERM, then waits. */
  stop(): Promise<void>;
}

export interface ServerConfig {
  databaseUrl: string;
  uploadDir: string;
  port: number;
  workers?: number;
  env?: Record<string, string>;
}

/** Starts `node dist/main` and waits until its API answers (at most 30 s). */
export async function startCmsServer(config: ServerConfig): Promise<CmsServer> {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(config.port),
      DATABASE_URL: config.databaseUrl,
      CMS_UPLOAD_DIR: config.uploadDir,
      CMS_WORKERS: String(config.workers ?? 1),
      CMS_ADMIN_USER: ADMIN.user,
      CMS_ADMIN_PASSWORD: ADMIN.password,
      CMS_REQUEST_LOG: 'off',
      LOG_LEVEL: 'warn',
      ...config.env,
    },
  });
  const keep = (d: Buffer) => (output = (output + String(d)).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = once(child, 'exit');
  const base = `http://127.0.0.1:${config.port}`;
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const server: CmsServer = {
    child,
    base,
    output: () => output,
    async kill() {
      if (gone()) return;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      await exited;
      // The cluster workers die with the group; wait until the port is free of them.
      await sleep(100);
    },
    async stop() {
      if (gone()) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
  for (let i = 0; i < 300; i++) {
    if (gone()) throw new Error(`server exited: ${output}`);
    try {
      const r = await fetch(`${base}/cms-json/`);
      if (r.ok) return server;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await server.kill();
  throw new Error(`server did not start: ${output}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------------------------

export interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

/** An administrator's cookie session: `Cookie` and `X-CMS-Nonce` for every request. */
export class Client {
  private headers: Record<string, string> = {};

  constructor(public base: string) {}

  async login(): Promise<void> {
    const r = await fetch(`${this.base}/cms-json/cms-auth/v1/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.user, password: ADMIN.password }),
    });
    const body = (await r.json()) as { nonce?: string };
    const cookies = r.headers.getSetCookie().map((c) => c.split(';')[0]);
    if (!r.ok || !body.nonce) throw new Error(`login failed: ${r.status}`);
    this.headers = { Cookie: cookies.join('; '), 'X-CMS-Nonce': body.nonce };
  }

  /** One request; throws when no answer came (connection refused or reset). */
  async send(
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
    timeoutMs = 30_000,
  ): Promise<Answer> {
    const raw = Buffer.isBuffer(body);
    const r = await fetch(`${this.base}${API}${path}`, {
      method,
      headers: {
        ...this.headers,
        ...(body !== undefined && !raw ? { 'Content-Type': 'application/json' } : {}),
        ...extra,
      },
      body: body === undefined ? undefined : raw ? new Uint8Array(body) : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await r.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: r.status, headers: r.headers, json };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The ledger
// ---------------------------------------------------------------------------------------------------------------

interface Tracked {
  id: number;
  /** A write on it got no answer or a 5xx: its state is unknown from then on. */
  uncertain: boolean;
  /** Deleted, as acknowledged. */
  gone: boolean;
}
export interface PostRecord extends Tracked {
  title: string;
  content: string;
  categories: number[];
  tags: number[];
  status: 'publish' | 'trash';
}
export interface TermRecord extends Tracked {
  taxonomy: 'categories' | 'tags';
  name: string;
}
export interface CommentRecord extends Tracked {
  post: number;
  content: string;
  status: 'approved' | 'hold' | 'spam';
  /** Its post was trashed or its status is otherwise not the client's to know. */
  statusUnknown: boolean;
}
export interface MediaRecord extends Tracked {
  title: string;
  file: string;
}

export class Ledger {
  posts = new Map<number, PostRecord>();
  terms = new Map<number, TermRecord>();
  comments = new Map<number, CommentRecord>();
  media = new Map<number, MediaRecord>();
  /** Objects a write is in flight on: no second write picks them. */
  busy = new Set<string>();
}

export interface LoadStats {
  /** Writes sent. */
  tried: number;
  /** 2xx answers (acknowledged writes). */
  acknowledged: number;
  /** Writes that got no answer (the server was killed under them, or refused the connection while down). */
  unanswered: number;
  /** 503 answers. */
  unavailable: number;
  /** Other 5xx answers, by status and code. */
  serverErrors: Record<string, number>;
  /** 4xx answers that the ledger did not expect (a missing object it holds for present, for one), by code. */
  unexpected: Record<string, number>;
  /** 4xx answers that the load expects (a duplicate term name), by code. */
  expected: Record<string, number>;
}

export function newStats(): LoadStats {
  return { tried: 0, acknowledged: 0, unanswered: 0, unavailable: 0, serverErrors: {}, unexpected: {}, expected: {} };
}

const add = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1);

// ---------------------------------------------------------------------------------------------------------------
// The load
// ---------------------------------------------------------------------------------------------------------------

export interface WorkloadOptions {
  /** Writers running side by side. */
  writers: number;
  seed: number;
  /** Titles and term names come from a small set, so that unique slugs are contended for (the writers' run). */
  contendedNames?: boolean;
}

type Op = () => Promise<void>;

export class Workload {
  readonly ledger = new Ledger();
  readonly stats = newStats();
  private readonly random: () => number;
  private running = false;
  private paused = false;
  private workers: Promise<void>[] = [];
  private counter = 0;
  private readonly pngs: Buffer[] = [];

  constructor(
    private client: Client,
    private readonly options: WorkloadOptions,
  ) {
    this.random = prng(options.seed);
  }

  async prepare(): Promise<void> {
    for (let i = 0; i < 4; i++) {
      this.pngs.push(
        await sharp({
          create: { width: 8 + i, height: 6 + i, channels: 3, background: { r: 40 * i, g: 90, b: 200 - 30 * i } },
        })
          .png()
          .toBuffer(),
      );
    }
  }

  /** Starts the writers. */
  start(): void {
    this.running = true;
    for (let i = 0; i < this.options.writers; i++) this.workers.push(this.loop());
  }

  /** Stops the writers and waits for the writes in flight. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
    this.workers = [];
  }

  /** Holds new writes (while the server restarts); writes in flight go on to their end. */
  pause(): void {
    this.paused = true;
  }

  resume(client: Client): void {
    this.client = client;
    this.paused = false;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      if (this.paused) {
        await sleep(20);
        continue;
      }
      const op = this.pick();
      if (op) await op();
      else await sleep(5);
    }
  }

  private pickFrom<T extends Tracked>(
    map: Map<number, T>,
    kind: string,
    filter: (t: T) => boolean = () => true,
  ): T | undefined {
    const candidates: T[] = [];
    for (const t of map.values())
      if (!t.gone && !t.uncertain && !this.ledger.busy.has(`${kind}:${t.id}`) && filter(t)) candidates.push(t);
    return candidates.length ? candidates[Math.floor(this.random() * candidates.length)] : undefined;
  }

  private name(prefix: string): string {
    const n = ++this.counter;
    return this.options.contendedNames ? `${prefix} ${n % 7}` : `${prefix} ${n}`;
  }

  private pick(): Op | undefined {
    const r = this.random();
    const L = this.ledger;
    const count = (m: Map<number, Tracked>) => [...m.values()].filter((t) => !t.gone).length;
    if (count(L.terms) < 6 || r < 0.1) return () => this.createTerm();
    if (r < 0.13) return this.withBusy('term', this.pickFrom(L.terms, 'term'), (t) => this.updateTerm(t));
    if (r < 0.15 && count(L.terms) > 10)
      return this.withBusy('term', this.pickFrom(L.terms, 'term'), (t) => this.deleteTerm(t));
    if (r < 0.4 || count(L.posts) < 4) return () => this.createPost();
    if (r < 0.55) return this.withBusy('post', this.pickFrom(L.posts, 'post'), (p) => this.updatePost(p));
    if (r < 0.6)
      return this.withBusy(
        'post',
        this.pickFrom(L.posts, 'post', (p) => p.status === 'publish'),
        (p) => this.trashPost(p),
      );
    if (r < 0.64) return this.withBusy('post', this.pickFrom(L.posts, 'post'), (p) => this.deletePost(p));
    if (r < 0.76)
      return this.withBusy(
        'post',
        this.pickFrom(L.posts, 'post', (p) => p.status === 'publish'),
        (p) => this.createComment(p),
      );
    if (r < 0.84)
      return this.withBusy(
        'comment',
        this.pickFrom(L.comments, 'comment', (c) => !c.statusUnknown),
        (c) => this.moderateComment(c),
      );
    if (r < 0.87) return this.withBusy('comment', this.pickFrom(L.comments, 'comment'), (c) => this.deleteComment(c));
    if (r < 0.93) return () => this.createMedia();
    if (r < 0.97) return this.withBusy('media', this.pickFrom(L.media, 'media'), (m) => this.updateMedia(m));
    return this.withBusy('media', this.pickFrom(L.media, 'media'), (m) => this.deleteMedia(m));
  }

  /** Runs an op on an object no other write is on (the post's terms and comments included by the op itself). */
  private withBusy<T extends Tracked>(
    kind: string,
    target: T | undefined,
    op: (t: T) => Promise<void>,
  ): Op | undefined {
    if (!target) return undefined;
    const key = `${kind}:${target.id}`;
    this.ledger.busy.add(key);
    return async () => {
      try {
        await op(target);
      } finally {
        this.ledger.busy.delete(key);
      }
    };
  }

  /**
   * Sends a write and sorts its answer. Returns the answer for a 2xx; `undefined` otherwise, after marking
   * `uncertain` what may have changed (no answer, or a 5xx).
   */
  private async write(
    method: string,
    path: string,
    body: unknown,
    uncertain: Tracked[],
    expect4xx: string[] = [],
    extra?: Record<string, string>,
  ): Promise<Answer | undefined> {
    this.stats.tried++;
    let answer: Answer;
    try {
      answer = await this.client.send(method, path, body, extra);
    } catch {
      this.stats.unanswered++;
      for (const t of uncertain) t.uncertain = true;
      return undefined;
    }
    if (answer.status >= 200 && answer.status < 300) {
      this.stats.acknowledged++;
      return answer;
    }
    const code = String(answer.json?.code ?? answer.status);
    if (answer.status === 503) this.stats.unavailable++;
    else if (answer.status >= 500) add(this.stats.serverErrors, `${answer.status} ${code}`);
    else if (expect4xx.includes(code)) add(this.stats.expected, code);
    else
      add(
        this.stats.unexpected,
        `${method} ${path.replace(/\d+/g, ':id').replace(/\?.*/, '')} ${answer.status} ${code}`,
      );
    if (answer.status >= 500) for (const t of uncertain) t.uncertain = true;
    return undefined;
  }

  /** Up to `n` terms of a taxonomy no write is on, marked busy for the op. */
  private someTerms(taxonomy: 'categories' | 'tags', n: number): TermRecord[] {
    const picked: TermRecord[] = [];
    for (let i = 0; i < n; i++) {
      const t = this.pickFrom(this.ledger.terms, 'term', (x) => x.taxonomy === taxonomy && !picked.includes(x));
      if (t) picked.push(t);
    }
    return picked;
  }

  private async withTerms(op: (categories: TermRecord[], tags: TermRecord[]) => Promise<void>): Promise<void> {
    const categories = this.someTerms('categories', 1 + Math.floor(this.random() * 2));
    const tags = this.someTerms('tags', Math.floor(this.random() * 3));
    const keys = [...categories, ...tags].map((t) => `term:${t.id}`);
    keys.forEach((k) => this.ledger.busy.add(k));
    try {
      await op(categories, tags);
    } finally {
      keys.forEach((k) => this.ledger.busy.delete(k));
    }
  }

  private async createTerm(): Promise<void> {
    const taxonomy = this.random() < 0.5 ? 'categories' : 'tags';
    const name = this.name(taxonomy === 'categories' ? 'Chaos category' : 'Chaos tag');
    const a = await this.write('POST', `/${taxonomy}`, { name }, [], ['term_exists']);
    if (a)
      this.ledger.terms.set(a.json.id, { id: a.json.id, taxonomy, name: a.json.name, uncertain: false, gone: false });
  }

  private async updateTerm(term: TermRecord): Promise<void> {
    const name = `${term.name.replace(/ \(.*$/, '')} (${++this.counter})`;
    const a = await this.write('POST', `/${term.taxonomy}/${term.id}`, { name }, [term]);
    if (a) term.name = a.json.name;
  }

  private async deleteTerm(term: TermRecord): Promise<void> {
    // The posts that hold it must not be written meanwhile: their terms change with it.
    const holders = [...this.ledger.posts.values()].filter(
      (p) => !p.gone && (p.categories.includes(term.id) || p.tags.includes(term.id)),
    );
    if (holders.some((p) => this.ledger.busy.has(`post:${p.id}`))) return;
    holders.forEach((p) => this.ledger.busy.add(`post:${p.id}`));
    try {
      const a = await this.write('DELETE', `/${term.taxonomy}/${term.id}?force=true`, undefined, [term, ...holders]);
      if (!a) return;
      term.gone = true;
      for (const p of holders) {
        p.categories = p.categories.filter((id) => id !== term.id);
        p.tags = p.tags.filter((id) => id !== term.id);
        // A post left without a category goes to the default one, as in WordPress.
        if (term.taxonomy === 'categories' && !p.categories.length) p.categories = [1];
      }
    } finally {
      holders.forEach((p) => this.ledger.busy.delete(`post:${p.id}`));
    }
  }

  private createPost(): Promise<void> {
    return this.withTerms(async (categories, tags) => {
      const title = this.name('Chaos post');
      const content = `Content of ${title}, written ${++this.counter}.`;
      // No category sent: the default one (`categories: []` would leave it without one, as in WordPress).
      const body = {
        title,
        content,
        status: 'publish',
        ...(categories.length ? { categories: categories.map((t) => t.id) } : {}),
        tags: tags.map((t) => t.id),
      };
      const a = await this.write('POST', '/posts', body, []);
      if (!a) return;
      this.ledger.posts.set(a.json.id, {
        id: a.json.id,
        title,
        content,
        categories: categories.length ? sorted(categories.map((t) => t.id)) : [1],
        tags: sorted(tags.map((t) => t.id)),
        status: 'publish',
        uncertain: false,
        gone: false,
      });
    });
  }

  private updatePost(post: PostRecord): Promise<void> {
    const changeTerms = this.random() < 0.5;
    const run = async (categories: TermRecord[], tags: TermRecord[]) => {
      const title = this.random() < 0.5 ? post.title : `${post.title.replace(/ \(.*$/, '')} (${++this.counter})`;
      const content = `Updated content ${++this.counter} of post ${post.id}.`;
      const body: Record<string, unknown> = { title, content };
      // An update with `categories: []` leaves the post without one, as WordPress does: the load always sends one.
      const termsSent = changeTerms && categories.length > 0;
      if (termsSent) Object.assign(body, { categories: categories.map((t) => t.id), tags: tags.map((t) => t.id) });
      const a = await this.write('POST', `/posts/${post.id}`, body, [post]);
      if (!a) return;
      post.title = title;
      post.content = content;
      if (termsSent) {
        post.categories = sorted(categories.map((t) => t.id));
        post.tags = sorted(tags.map((t) => t.id));
      }
    };
    return changeTerms ? this.withTerms(run) : run([], []);
  }

  private async trashPost(post: PostRecord): Promise<void> {
    const comments = [...this.ledger.comments.values()].filter((c) => c.post === post.id && !c.gone);
    const a = await this.write('DELETE', `/posts/${post.id}`, undefined, [post]);
    // Its comments wait in `post-trashed` (WordPress keeps the post's comment_count for an untrash, so trashed posts
    // are left out of the recount), their statuses kept on the post : not the client's to check any more.
    comments.forEach((c) => (c.statusUnknown = true));
    if (a) post.status = 'trash';
  }

  private async deletePost(post: PostRecord): Promise<void> {
    const comments = [...this.ledger.comments.values()].filter((c) => c.post === post.id && !c.gone);
    if (comments.some((c) => this.ledger.busy.has(`comment:${c.id}`))) return;
    comments.forEach((c) => this.ledger.busy.add(`comment:${c.id}`));
    try {
      const a = await this.write('DELETE', `/posts/${post.id}?force=true`, undefined, [post, ...comments]);
      if (!a) return;
      post.gone = true;
      comments.forEach((c) => (c.gone = true));
    } finally {
      comments.forEach((c) => this.ledger.busy.delete(`comment:${c.id}`));
    }
  }

  private async createComment(post: PostRecord): Promise<void> {
    const content = `Comment ${++this.counter} on post ${post.id}.`;
    // The post's comment_count moves with it: an unanswered comment leaves the post's count to the recount check.
    const a = await this.write('POST', '/comments', { post: post.id, content }, []);
    if (a)
      this.ledger.comments.set(a.json.id, {
        id: a.json.id,
        post: post.id,
        content,
        status: a.json.status,
        statusUnknown: false,
        uncertain: false,
        gone: false,
      });
  }

  private async moderateComment(comment: CommentRecord): Promise<void> {
    const status = (['approved', 'hold', 'spam'] as const).filter((s) => s !== comment.status)[
      Math.floor(this.random() * 2)
    ];
    const a = await this.write('POST', `/comments/${comment.id}`, { status }, [comment]);
    if (a) comment.status = status;
  }

  private async deleteComment(comment: CommentRecord): Promise<void> {
    const a = await this.write('DELETE', `/comments/${comment.id}?force=true`, undefined, [comment]);
    if (a) comment.gone = true;
  }

  private async createMedia(): Promise<void> {
    const title = this.name('Chaos image');
    const png = this.pngs[Math.floor(this.random() * this.pngs.length)];
    const file = `chaos-${++this.counter}.png`;
    const a = await this.write('POST', `/media?title=${encodeURIComponent(title)}`, png, [], [], {
      'Content-Type': 'image/png',
      'Content-Disposition': `attachment; filename="${file}"`,
    });
    if (a)
      this.ledger.media.set(a.json.id, {
        id: a.json.id,
        title,
        file: a.json.media_details?.file ?? '',
        uncertain: false,
        gone: false,
      });
  }

  private async updateMedia(media: MediaRecord): Promise<void> {
    const title = `${media.title.replace(/ \(.*$/, '')} (${++this.counter})`;
    const a = await this.write('POST', `/media/${media.id}`, { title, alt_text: title }, [media]);
    if (a) media.title = title;
  }

  private async deleteMedia(media: MediaRecord): Promise<void> {
    const a = await this.write('DELETE', `/media/${media.id}?force=true`, undefined, [media]);
    if (a) media.gone = true;
  }
}

export const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

// ---------------------------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------------------------

export interface LedgerReport {
  /** Acknowledged objects read back. */
  checked: number;
  /** Uncertain ones, not checked. */
  uncertain: number;
  /** Acknowledged writes not found as the client was told: one line each. */
  lost: string[];
}

/** Reads every object of the ledger back through the API (edit context) and compares it with what 2xx answers said. */
export async function checkLedger(client: Client, ledger: Ledger): Promise<LedgerReport> {
  const report: LedgerReport = { checked: 0, uncertain: 0, lost: [] };
  const jobs: Array<() => Promise<void>> = [];
  const check = <T extends Tracked>(
    kind: string,
    path: (t: T) => string,
    map: Map<number, T>,
    compare: (t: T, json: any) => string | undefined,
  ) => {
    for (const t of map.values()) {
      if (t.uncertain) {
        report.uncertain++;
        continue;
      }
      jobs.push(async () => {
        report.checked++;
        const a = await client.send('GET', `${path(t)}${path(t).includes('?') ? '&' : '?'}context=edit`);
        if (t.gone) {
          if (a.status !== 404) report.lost.push(`${kind} ${t.id}: deleted (acknowledged) but answers ${a.status}`);
          return;
        }
        if (a.status !== 200)
          return void report.lost.push(`${kind} ${t.id}: acknowledged but answers ${a.status} ${a.json?.code ?? ''}`);
        const differs = compare(t, a.json);
        if (differs) report.lost.push(`${kind} ${t.id}: ${differs}`);
      });
    }
  };
  const same = (what: string, got: unknown, want: unknown) =>
    JSON.stringify(got) === JSON.stringify(want)
      ? undefined
      : `${what} is ${JSON.stringify(got)}, acknowledged ${JSON.stringify(want)}`;
  check(
    'post',
    (p) => `/posts/${p.id}`,
    ledger.posts,
    (p, j) =>
      same('title', j.title?.raw, p.title) ??
      same('content', j.content?.raw, p.content) ??
      same('status', j.status, p.status) ??
      same('categories', sorted(j.categories ?? []), p.categories) ??
      same('tags', sorted(j.tags ?? []), p.tags),
  );
  check(
    'term',
    (t) => `/${t.taxonomy}/${t.id}`,
    ledger.terms,
    (t, j) => same('name', j.name, t.name),
  );
  check(
    'comment',
    (c) => `/comments/${c.id}`,
    ledger.comments,
    (c, j) =>
      same('content', j.content?.raw, c.content) ??
      same('post', j.post, c.post) ??
      (c.statusUnknown ? undefined : same('status', j.status, c.status)),
  );
  check(
    'media',
    (m) => `/media/${m.id}`,
    ledger.media,
    (m, j) => same('title', j.title?.raw, m.title) ?? same('file', j.media_details?.file ?? '', m.file),
  );
  // Eight at a time.
  const queue = [...jobs];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) await job();
    }),
  );
  return report;
}

/** A connection to the database for the checks (read only as far as they go). */
export interface Sql {
  query(sql: string, params?: unknown[]): Promise<any[]>;
  close(): Promise<void>;
}

export async function openSql(databaseUrl: string): Promise<Sql> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true, timeout: 10_000 });
    return { query: async (sql, params = []) => db.prepare(sql).all(...params), close: async () => void db.close() };
  }
  const connection = await mysql.createConnection({ uri: databaseUrl, dateStrings: true, supportBigNumbers: true });
  return {
    query: async (sql, params = []) => (await connection.query(sql, params))[0] as any[],
    close: () => connection.end(),
  };
}

export interface DatabaseReport {
  /** Each kind of half-written state found, with how many. */
  problems: Record<string, number>;
  /** Examples of each, a few. */
  examples: string[];
  /** Rows and files looked at. */
  posts: number;
  terms: number;
  comments: number;
  files: number;
}

/** Looks into the database and the upload directory for half-written state (see the file's description). */
export async function checkDatabase(sql: Sql, uploadDir: string, prefix = 'cms_'): Promise<DatabaseReport> {
  const t = (name: string) => `${prefix}${name}`;
  const problems: Record<string, number> = {};
  const examples: string[] = [];
  const found = (kind: string, rows: any[], describe: (r: any) => string) => {
    if (!rows.length) return;
    problems[kind] = (problems[kind] ?? 0) + rows.length;
    examples.push(...rows.slice(0, 3).map((r) => `${kind}: ${describe(r)}`));
  };
  found(
    'post without a category',
    await sql.query(
      `SELECT p.ID AS id FROM ${t('posts')} p WHERE p.post_type = 'post' AND p.post_status IN ('publish', 'trash')
       AND NOT EXISTS (SELECT 1 FROM ${t('term_relationships')} r JOIN ${t('term_taxonomy')} tt ON tt.term_taxonomy_id = r.term_taxonomy_id
                       WHERE r.object_id = p.ID AND tt.taxonomy = 'category')`,
    ),
    (r) => `post ${r.id}`,
  );
  found(
    'relationship of a missing post',
    await sql.query(
      `SELECT r.object_id AS id FROM ${t('term_relationships')} r LEFT JOIN ${t('posts')} p ON p.ID = r.object_id WHERE p.ID IS NULL`,
    ),
    (r) => `object ${r.id}`,
  );
  found(
    'relationship of a missing term',
    await sql.query(
      `SELECT r.term_taxonomy_id AS id FROM ${t('term_relationships')} r LEFT JOIN ${t('term_taxonomy')} tt ON tt.term_taxonomy_id = r.term_taxonomy_id WHERE tt.term_taxonomy_id IS NULL`,
    ),
    (r) => `term_taxonomy ${r.id}`,
  );
  found(
    'term_taxonomy of a missing term',
    await sql.query(
      `SELECT tt.term_taxonomy_id AS id FROM ${t('term_taxonomy')} tt LEFT JOIN ${t('terms')} x ON x.term_id = tt.term_id WHERE x.term_id IS NULL`,
    ),
    (r) => `term_taxonomy ${r.id}`,
  );
  found(
    'comment of a missing post',
    await sql.query(
      `SELECT c.comment_ID AS id FROM ${t('comments')} c LEFT JOIN ${t('posts')} p ON p.ID = c.comment_post_ID WHERE p.ID IS NULL`,
    ),
    (r) => `comment ${r.id}`,
  );
  found(
    'meta of a missing post',
    await sql.query(
      `SELECT m.meta_id AS id FROM ${t('postmeta')} m LEFT JOIN ${t('posts')} p ON p.ID = m.post_id WHERE p.ID IS NULL`,
    ),
    (r) => `postmeta ${r.id}`,
  );
  found(
    'term count differs from a recount',
    await sql
      .query(
        `SELECT tt.term_taxonomy_id AS id, tt.count AS stored,
            (SELECT COUNT(*) FROM ${t('term_relationships')} r JOIN ${t('posts')} p ON p.ID = r.object_id
              WHERE r.term_taxonomy_id = tt.term_taxonomy_id AND p.post_type = 'post' AND p.post_status = 'publish') AS recount
       FROM ${t('term_taxonomy')} tt WHERE tt.taxonomy IN ('category', 'post_tag')`,
      )
      .then((rows) => rows.filter((r) => Number(r.stored) !== Number(r.recount))),
    (r) => `term_taxonomy ${r.id}: ${r.stored} stored, ${r.recount} counted`,
  );
  found(
    'comment_count differs from a recount',
    await sql
      .query(
        `SELECT p.ID AS id, p.comment_count AS stored,
            (SELECT COUNT(*) FROM ${t('comments')} c WHERE c.comment_post_ID = p.ID AND c.comment_approved = '1') AS recount
       FROM ${t('posts')} p WHERE p.post_type = 'post' AND p.post_status <> 'trash'`,
      )
      .then((rows) => rows.filter((r) => Number(r.stored) !== Number(r.recount))),
    (r) => `post ${r.id}: ${r.stored} stored, ${r.recount} counted`,
  );
  // Trashed posts are left out: trashing renames a slug to `<slug>__trashed` without a check, as WordPress does
  // (wp_add_trashed_suffix_to_post_name_for_post), so two posts trashed under one slug in turn share it.
  found(
    'duplicate post slug',
    await sql.query(
      `SELECT post_name AS slug, COUNT(*) AS n FROM ${t('posts')} WHERE post_type = 'post' AND post_status NOT IN ('trash', 'inherit', 'auto-draft') AND post_name <> ''
      GROUP BY post_name HAVING COUNT(*) > 1`,
    ),
    (r) => `${r.slug} × ${r.n}`,
  );
  found(
    'duplicate term slug',
    await sql.query(
      `SELECT tt.taxonomy AS taxonomy, x.slug AS slug, COUNT(*) AS n FROM ${t('terms')} x JOIN ${t('term_taxonomy')} tt ON tt.term_id = x.term_id
      GROUP BY tt.taxonomy, x.slug HAVING COUNT(*) > 1`,
    ),
    (r) => `${r.taxonomy} ${r.slug} × ${r.n}`,
  );
  // Files and rows: every attachment's file and sizes on disk, every file on disk an attachment's.
  const attachments = await sql.query(
    `SELECT p.ID AS id, f.meta_value AS file, m.meta_value AS metadata FROM ${t('posts')} p
       LEFT JOIN ${t('postmeta')} f ON f.post_id = p.ID AND f.meta_key = '_wp_attached_file'
       LEFT JOIN ${t('postmeta')} m ON m.post_id = p.ID AND m.meta_key = '_wp_attachment_metadata'
      WHERE p.post_type = 'attachment'`,
  );
  const owned = new Set<string>();
  const missing: any[] = [];
  for (const a of attachments) {
    const file = String(a.file ?? '');
    const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
    const names = [
      file,
      ...[...String(a.metadata ?? '').matchAll(/s:4:"file";s:\d+:"([^"]+)"/g)]
        .map((m) => m[1])
        .filter((f) => !f.includes('/'))
        .map((f) => dir + f),
    ];
    for (const name of names) {
      owned.add(name);
      if (!name || !existsSync(join(uploadDir, name))) missing.push({ id: a.id, name });
    }
  }
  found('attachment row without its file', missing, (r) => `attachment ${r.id}: ${r.name || '(no file)'}`);
  const files = existsSync(uploadDir) ? walk(uploadDir).map((f) => relative(uploadDir, f).split('\\').join('/')) : [];
  found(
    'file without an attachment row',
    files.filter((f) => !owned.has(f)).map((name) => ({ name })),
    (r) => r.name,
  );
  const [posts] = await sql.query(`SELECT COUNT(*) AS n FROM ${t('posts')}`);
  const [terms] = await sql.query(`SELECT COUNT(*) AS n FROM ${t('term_taxonomy')}`);
  const [comments] = await sql.query(`SELECT COUNT(*) AS n FROM ${t('comments')}`);
  return {
    problems,
    examples,
    posts: Number(posts.n),
    terms: Number(terms.n),
    comments: Number(comments.n),
    files: files.length,
  };
}

function walk(dir: string): string[] {
  // Dot-directories are the server's own (`.cms-pending`, the upload journal), not uploads.
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => {
      const full = join(dir, name);
      return statSync(full).isDirectory() ? walk(full) : [full];
    });
}

// ---------------------------------------------------------------------------------------------------------------
// A run: the load, with SIGKILLs at random moments
// ---------------------------------------------------------------------------------------------------------------

export interface ChaosRunOptions extends ServerConfig {
  kills: number;
  /** Length of the run, in seconds (the kills fall at random moments within it). */
  seconds: number;
  writers: number;
  seed: number;
  contendedNames?: boolean;
  log?: (line: string) => void;
}

export interface ChaosRunResult {
  stats: LoadStats;
  kills: number;
  restarts: number;
  ledger: LedgerReport;
  database: DatabaseReport;
  /** Checks after each restart: acknowledged writes found missing then. */
  lostAfterRestarts: number;
  /** Seconds from the writers' start to their stop, as measured (restarts included): `seconds`, or more. */
  loadSeconds: number;
}

/**
 * Runs the load against a server for `seconds` (restarts that take longer than their share lengthen the run),
 * SIGKILLs it `kills` times at random moments, restarts it each time, checks.
 */
export async function chaosRun(options: ChaosRunOptions): Promise<ChaosRunResult> {
  const log = options.log ?? (() => undefined);
  const random = prng(options.seed ^ 0x9e3779b9);
  let server = await startCmsServer(options);
  let client = new Client(server.base);
  await client.login();
  const load = new Workload(client, {
    writers: options.writers,
    seed: options.seed,
    contendedNames: options.contendedNames,
  });
  await load.prepare();
  const started = performance.now();
  load.start();
  let restarts = 0;
  let lostAfterRestarts = 0;
  let loadSeconds = 0;
  try {
    const slice = (options.seconds * 1000) / (options.kills + 1);
    for (let k = 0; k < options.kills; k++) {
      // A random moment within this kill's share of the run.
      await sleep(slice * (0.3 + 0.7 * random()));
      // No new writes from now on; those in flight die with the server, unanswered.
      load.pause();
      await server.kill();
      log(`kill ${k + 1}: SIGKILL after ${load.stats.acknowledged} acknowledged writes`);
      await sleep(200);
      server = await startCmsServer(options);
      restarts++;
      client = new Client(server.base);
      await client.login();
      const after = await checkLedger(client, load.ledger);
      lostAfterRestarts += after.lost.length;
      for (const line of after.lost.slice(0, 5)) log(`  lost: ${line}`);
      load.resume(client);
      await sleep(slice * 0.3 * random());
    }
    // The load goes on to the end of the run (all of it without kills), and for half a share at least after the
    // last restart.
    await sleep(Math.max(started + options.seconds * 1000 - performance.now(), slice * 0.5));
  } finally {
    await load.stop();
    loadSeconds = (performance.now() - started) / 1000;
  }
  try {
    const ledger = await checkLedger(client, load.ledger);
    const sql = await openSql(options.databaseUrl);
    try {
      const database = await checkDatabase(sql, options.uploadDir);
      return { stats: load.stats, kills: options.kills, restarts, ledger, database, lostAfterRestarts, loadSeconds };
    } finally {
      await sql.close();
    }
  } finally {
    await server.stop();
  }
}
