import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../core/database/cms-data-source';
import { MetaOp } from '../core/rest/meta-fields';
import { WxrMeta } from './wxr-reader';
import { ImportReport } from './wxr-report';

/** What the parts of an import share: the application, its database, the report, and whether it is a dry run. */
export class WxrImportContext {
  readonly dataSource: DataSource;
  private lastFakeId = 0;

  constructor(
    private readonly app: INestApplicationContext,
    readonly report: ImportReport,
  ) {
    this.dataSource = this.get(CMS_DATA_SOURCE);
  }

  /** A dry run reads the site and decides, but writes nothing. */
  get dryRun(): boolean {
    return this.report.dryRun;
  }

  /** A provider of the application, looked up anywhere in its modules. */
  get<T>(token: unknown): T {
    return this.app.get<T>(token as never, { strict: false });
  }

  /** In a dry run, the id of a record that would be created: negative, so never one of the site's. */
  fakeId(): number {
    return --this.lastFakeId;
  }
}

export const message = (error: unknown) => (error as Error)?.message ?? String(error);

/** Meta rows as the writes of the services: each key with its values in file order. */
export function metaOps(meta: WxrMeta[]): MetaOp[] {
  const byKey = new Map<string, string[]>();
  for (const m of meta) if (m.key) byKey.set(m.key, [...(byKey.get(m.key) ?? []), m.value]);
  return [...byKey].map(([key, values]) => ({ key, action: 'multi' as const, values }));
}
