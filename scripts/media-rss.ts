/**
 * Resident memory of a process serving a burst of image uploads, with sharp as the media module sets it up (no
 * operation cache, one libvips thread per image) or with sharp's defaults (`MEDIA_SHARP=defaults`):
 *
 *   npx ts-node --transpile-only scripts/media-rss.ts                      # 200 uploads, 8 at a time, 30 s idle
 *   MEDIA_SHARP=defaults npx ts-node --transpile-only scripts/media-rss.ts
 *   MALLOC_ARENA_MAX=2 npx ts-node --transpile-only scripts/media-rss.ts
 *   UPLOADS=400 PARALLEL=16 IDLE=60 npx ts-node --transpile-only scripts/media-rss.ts
 *
 * The API runs in this process on SQLite in memory (test/utils/test-app), the client too (its images are made once
 * and reused, a few MB). Prints one JSON line: RSS before, at the peak, right after the burst, and after the idle time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { createTestApp } from '../test/utils/test-app';

const MB = 1024 * 1024;
const uploads = Number(process.env.UPLOADS ?? 200);
const parallel = Number(process.env.PARALLEL ?? 8);
const idleSeconds = Number(process.env.IDLE ?? 30);
const defaults = process.env.MEDIA_SHARP === 'defaults';

/** Photos of a few hundred KB: a gradient with noise, as JPEG and PNG. */
async function images(): Promise<Array<{ body: Buffer; type: string; ext: string }>> {
  const out = [];
  for (let n = 0; n < 8; n++) {
    const width = 1600 + n * 64;
    const height = 1200;
    const pixels = Buffer.alloc(width * height * 3);
    for (let i = 0; i < pixels.length; i++) pixels[i] = ((i % (width * 3)) / 12 + ((i * 7919 + n) % 23)) & 0xff;
    const image = sharp(pixels, { raw: { width, height, channels: 3 } });
    out.push(
      n % 4 === 3
        ? { body: await image.png({ compressionLevel: 9 }).toBuffer(), type: 'image/png', ext: 'png' }
        : { body: await image.jpeg({ quality: 85 }).toBuffer(), type: 'image/jpeg', ext: 'jpg' },
    );
  }
  return out;
}

async function main(): Promise<void> {
  // sharp's own settings, as it set them when loaded (before the media module changes them).
  const sharpDefaults = { cache: sharp.cache(), concurrency: sharp.concurrency() };
  const dir = mkdtempSync(join(tmpdir(), 'cms-rss-'));
  const t = await createTestApp('media_rss', { cms: { uploadDir: dir } });
  if (process.env.SHARP_CACHE) sharp.cache(JSON.parse(process.env.SHARP_CACHE));
  if (defaults) {
    sharp.cache({
      memory: sharpDefaults.cache.memory.max,
      files: sharpDefaults.cache.files.max,
      items: sharpDefaults.cache.items.max,
    });
    sharp.concurrency(sharpDefaults.concurrency);
  }
  const bodies = await images();
  const upload = (n: number) => {
    const image = bodies[n % bodies.length];
    return t.http
      .post('/cms-json/cms/v2/media')
      .set('Authorization', t.users.author.authorization)
      .set('Content-Type', image.type)
      .set('Content-Disposition', `attachment; filename="photo-${n}.${image.ext}"`)
      .send(image.body);
  };
  for (let n = 0; n < 4; n++) await upload(n);
  global.gc?.();
  await sleep(1000);
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = Date.now();
  let next = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < uploads) {
        const res = await upload(next++);
        if (res.status !== 201) failed++;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const after = process.memoryUsage().rss;
  await sleep(idleSeconds * 1000);
  global.gc?.();
  await sleep(200);
  clearInterval(sampler);
  const idle = process.memoryUsage().rss;
  console.log(
    JSON.stringify({
      sharp: defaults ? 'defaults' : 'media module',
      cache: sharp.cache(),
      concurrency: sharp.concurrency(),
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? null,
      uploads,
      parallel,
      failed,
      averageKB: Math.round(bodies.reduce((s, b) => s + b.body.length, 0) / bodies.length / 1024),
      seconds,
      rssMB: {
        before: Math.round(before / MB),
        peak: Math.round(peak / MB),
        afterBurst: Math.round(after / MB),
        [`after${idleSeconds}sIdle`]: Math.round(idle / MB),
      },
    }),
  );
  await t.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
