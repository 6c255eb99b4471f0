import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../core/database/cms-data-source';
import { MetaOp } from '../core/rest/meta-fields';
import { WxrMeta } from './wxr-reader';

/** Created / skipped / failed counts of one kind of record. */
export class Tally {
  created = 0;
  skipped = 0;
  failed = 0;
  line(label: string): string {
    return `${label}: ${this.created} created, ${this.skipped} skipped, ${this.failed} failed`;
  }
}

/** Where the importer's failures and notes go, a line each. */
export type ImportReport = (line: string) => void;

/** What the parts of an import share: the application, its database, and where failures and notes go. */
export class WxrImportContext {
  readonly dataSource: DataSource;

  constructor(
    private readonly app: INestApplicationContext,
    readonly report: ImportReport,
  ) {
    this.dataSource = this.get(CMS_DATA_SOURCE);
  }

  /** A provider of the application, looked up anywhere in its modules. */
  get<T>(token: unknown): T {
    return this.app.get<T>(token as never, { strict: false });
  }
}

export const message = (error: unknown) => (error as Error)?.message ?? String(error);

/** Meta rows as the writes of the services: each key with its values in file order. */
export function metaOps(meta: WxrMeta[]): MetaOp[] {
  const byKey = new Map<string, string[]>();
  for (const m of meta) if (m.key) byKey.set(m.key, [...(byKey.get(m.key) ?? []), m.value]);
  return [...byKey].map(([key, values]) => ({ key, action: 'multi' as const, values }));
}
