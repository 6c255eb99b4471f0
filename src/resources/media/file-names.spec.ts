import { fitFileName, MAX_FILE_NAME_BYTES, SIZE_SUFFIX_BYTES, truncateToBytes } from './file-names';

describe("file names within the file systems' 255 bytes", () => {
  const bytes = (text: string) => Buffer.byteLength(text);

  it('cuts by bytes of UTF-8, between characters as shown', () => {
    expect(truncateToBytes('abcdef', 4)).toBe('abcd');
    expect(truncateToBytes('short', 255)).toBe('short');
    // é is 2 bytes: 5 bytes hold two of them, never half of the third.
    expect(truncateToBytes('ééé', 5)).toBe('éé');
    // 😀 is 4 bytes (two UTF-16 units): never a lone surrogate.
    expect(truncateToBytes('😀😀', 7)).toBe('😀');
    // e + combining acute (3 bytes together): the letter never loses its mark.
    expect(truncateToBytes('e\u0301e\u0301', 5)).toBe('e\u0301');
    // A family emoji (one grapheme of 18 bytes) is kept whole or not at all.
    expect(truncateToBytes('a👨‍👩‍👧', 10)).toBe('a');
  });

  it("keeps the extension, leaves room for a counter and the sizes' -WxH, and cuts the same base for every counter", () => {
    const long = 'a'.repeat(300);
    const first = fitFileName(long, '', 'png');
    const second = fitFileName(long, '-1', 'png');
    expect(first.endsWith('.png')).toBe(true);
    expect(second).toBe(first.replace(/\.png$/, '-1.png'));
    expect(
      bytes(`${fitFileName(long, '-99999', 'jpeg').replace(/\.jpeg$/, '')}-999999999x999999999.jpeg`),
    ).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    // A larger counter shortens the base rather than overflow.
    expect(bytes(fitFileName(long, '-1234567', 'png')) + SIZE_SUFFIX_BYTES).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    // Short names are untouched.
    expect(fitFileName('photo', '-2', 'jpg')).toBe('photo-2.jpg');
  });

  it('drops the dots and dashes a cut leaves at the end, and names an empty base "file"', () => {
    const base = `${'a'.repeat(224)}-b`;
    expect(fitFileName(base, '', 'png')).toBe(`${'a'.repeat(224)}.png`);
    expect(fitFileName('', '', 'png')).toBe('file.png');
  });
});
