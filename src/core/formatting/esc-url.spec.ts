import { escUrlRaw, sanitizeSavedName, sanitizeSavedUrl, wpSpecialchars } from './esc-url';

describe('escUrlRaw (esc_url_raw)', () => {
  it('keeps URLs of allowed protocols and relative URLs', () => {
    expect(escUrlRaw('https://example.com/a?b=1&c=2#d')).toBe('https://example.com/a?b=1&c=2#d');
    expect(escUrlRaw('mailto:someone@example.com')).toBe('mailto:someone@example.com');
    expect(escUrlRaw('/relative/path')).toBe('/relative/path');
    expect(escUrlRaw('#top')).toBe('#top');
    expect(escUrlRaw('?q=1')).toBe('?q=1');
    expect(escUrlRaw('')).toBe('');
  });

  it('refuses protocols that are not allowed, in any case and with tricks', () => {
    for (const url of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html;base64,PHNjcmlwdD4=',
      'vbscript:msgbox(1)',
      'java\tscript:alert(1)',
    ]) {
      expect(escUrlRaw(url)).toBe('');
    }
    // An encoded colon is no scheme: the text becomes a host name of an http URL, as in WordPress.
    expect(escUrlRaw('javascript&#58;alert(1)')).toBe('http://javascript&#58;alert(1)');
  });

  it('adds http:// to a URL without a scheme, but not to a PHP file', () => {
    expect(escUrlRaw('example.com/path')).toBe('http://example.com/path');
    expect(escUrlRaw('index.php?p=1')).toBe('index.php?p=1');
  });

  it('drops characters a URL cannot hold, encodes spaces and removes CR/LF escapes', () => {
    expect(escUrlRaw(' https://example.com/a b<c>"d')).toBe('https://example.com/a%20bcd');
    expect(escUrlRaw('https://example.com/%0d%0aSet-Cookie:x')).toBe('https://example.com/Set-Cookie:x');
    expect(escUrlRaw('https://example.com/%0%0dd')).toBe('https://example.com/');
    expect(escUrlRaw('mailto:a@example.com?body=%0d%0a')).toBe('mailto:a@example.com?body=%0d%0a');
  });

  it('encodes brackets after the host and keeps an IPv6 host', () => {
    expect(escUrlRaw('http://[::1]:8080/a[0]=b')).toBe('http://[::1]:8080/a%5B0%5D=b');
  });
});

describe('save filters', () => {
  it('sanitizeSavedUrl strips tags and stores & as an entity, as pre_user_url does', () => {
    expect(sanitizeSavedUrl('<b>https://example.com/?a=1&b=2</b>')).toBe('https://example.com/?a=1&amp;b=2');
    expect(sanitizeSavedUrl('javascript:alert(1)')).toBe('');
  });

  it('wpSpecialchars encodes &, < and > once', () => {
    expect(wpSpecialchars('a & b < c > d &amp; e')).toBe('a &amp; b &lt; c &gt; d &amp; e');
    expect(wpSpecialchars('plain')).toBe('plain');
    expect(sanitizeSavedName('Tom & Jerry')).toBe('Tom &amp; Jerry');
  });
});
