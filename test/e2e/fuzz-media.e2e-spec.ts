import sharp from 'sharp';
import { bombPng, crc32, gif, greyJpeg, mediaCorpus, solidPng } from '../../scripts/reliability/fuzz-media';
import { FuzzRoute, KINDS, reproduction, sampleRequests, violations } from '../../scripts/reliability/fuzz-requests';

/**
 * The fuzzer's media corpus (scripts/reliability/fuzz-media.ts) and its place in the requests of a seed: every file is
 * broken as its label says, starting from a file of its format that decodes, and `npm run fuzz` uploads each of them
 * to the route that takes files, as the administrator, raw and as multipart; a 500 to one is a finding.
 */

const ROUTES: FuzzRoute[] = [
  {
    route: '/cms/v2/posts',
    endpoints: [
      { methods: ['GET'], args: { page: { type: 'integer' } } },
      { methods: ['POST'], args: { title: { type: 'string' } } },
    ],
  },
  {
    route: '/cms/v2/media',
    endpoints: [
      { methods: ['GET'], args: {} },
      { methods: ['POST'], args: { title: { type: 'string' } }, acceptsFiles: true },
    ],
  },
  { route: '/cms/v2/media/(?P<id>[\\d]+)', endpoints: [{ methods: ['GET', 'POST', 'DELETE'], args: {} }] },
];

const file = (label: string) => {
  const found = mediaCorpus().find((m) => m.label.startsWith(label));
  if (!found) throw new Error(`no corpus file "${label}"`);
  return found;
};

describe("the fuzzer's media corpus", () => {
  it('starts from files that decode: the JPEG, PNGs, GIF and the bomb (a smaller one decoded whole)', async () => {
    const decoded = async (bytes: Buffer) => {
      const { info, data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.height, first: [...data.subarray(0, 3)] };
    };
    expect(await decoded(greyJpeg(256, 256))).toEqual({ width: 256, height: 256, first: [128, 128, 128] });
    expect(await decoded(solidPng(16, 16))).toEqual({ width: 16, height: 16, first: [200, 40, 90] });
    expect(await decoded(gif(1))).toEqual({ width: 1, height: 1, first: [0, 0, 0] });
    expect(await decoded(bombPng(400))).toEqual({ width: 400, height: 400, first: [20, 120, 220] });
  });

  it('holds what the labels say: lying dimensions, a bomb of 16000² in under 1 MB, cut files, long names', async () => {
    const header = async (label: string) => {
      const meta = await sharp(file(label).bytes, { limitInputPixels: false }).metadata();
      return [meta.format, meta.width, meta.height];
    };
    expect(await header('PNG whose IHDR says 1 × 1,000,000')).toEqual(['png', 1, 1_000_000]);
    expect(await header('PNG bomb')).toEqual(['png', 16000, 16000]);
    expect(await header('WebP (lossless) declaring')).toEqual(['webp', 16383, 16383]);
    expect(await header('JPEG whose frame header says')).toEqual(['jpeg', 65500, 65500]);
    expect(file('PNG bomb').bytes.length).toBeLessThan(1024 * 1024);
    // The IHDR's CRC matches its lie, so a decoder reads on.
    const tall = file('PNG whose IHDR').bytes;
    expect(tall.readUInt32BE(8 + 8 + 13)).toBe(crc32(tall.subarray(12, 12 + 4 + 13)));
    expect(file('JPEG cut at 400 bytes').bytes.length).toBe(400);
    await expect(sharp(file('JPEG cut at 400 bytes').bytes).raw().toBuffer()).rejects.toThrow();
    await expect(sharp(file('PNG with a corrupt IDAT').bytes).raw().toBuffer()).rejects.toThrow();
    expect(file('EBML magic').bytes.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
    expect(Buffer.byteLength(file('name of 260 × a').filename)).toBe(264);
    expect(Buffer.byteLength(file('name of 130 × é').filename)).toBe(264);
    // The same bytes every time.
    expect(bombPng(16000).equals(file('PNG bomb').bytes)).toBe(true);
  });

  it('is uploaded, every file raw and as multipart, to the route that takes files, as the administrator', () => {
    expect(KINDS).toContain('media');
    const media = sampleRequests(ROUTES, { prefix: '/cms-json', groups: { id: ['1'] } }, 20, 3000).filter(
      (r) => r.kind === 'media',
    );
    expect(new Set(media.map((r) => `${r.method} ${r.route} ${r.admin}`))).toEqual(
      new Set(['POST /cms/v2/media true']),
    );
    const sent = new Set(media.map((r) => r.label));
    const expected = mediaCorpus().flatMap((m) => [`${m.label} (raw)`, `${m.label} (multipart)`]);
    expect(expected.filter((label) => !sent.has(label))).toEqual([]);
    const raw = media.find((r) => r.label === `${file('PNG bomb').label} (raw)`)!;
    expect({
      type: raw.headers['content-type'],
      disposition: raw.headers['content-disposition'],
      same: raw.body?.equals(file('PNG bomb').bytes),
    }).toEqual({
      type: 'image/png',
      disposition: 'attachment; filename="bomb.png"',
      same: true,
    });
    const longName = media.find((r) => r.label === `${file('name of 130 × é').label} (multipart)`)!;
    expect(longName.body!.includes(Buffer.from(`filename="${'é'.repeat(130)}.png"`, 'utf8'))).toBe(true);
    // Shown without its bytes when reproduced.
    expect(reproduction('http://localhost:3000', raw)).toMatch(
      /--data-binary @body\.bin {2}# \d+ bytes \(PNG bomb: 16000 × 16000 of one colour \(raw\)\)/,
    );
  });

  it('counts a 500 to an upload of the corpus as a finding, whatever its code', () => {
    const [req] = sampleRequests(ROUTES, { prefix: '/cms-json', groups: { id: ['1'] } }, 20, 3000).filter(
      (r) => r.kind === 'media',
    );
    for (const code of ['rest_upload_unknown_error', 'rest_internal_error', 'rest_comment_failed_edit']) {
      const answer = {
        status: 500,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, message: 'x', data: { status: 500 } }),
      };
      expect(violations(req, answer, [])).toContain(`status 500 ${code}: x`);
    }
    expect(violations(req, { status: 500, headers: {}, body: '' }, [])).toContain('status 500');
  });
});
