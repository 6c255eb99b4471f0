/** WordPress `is_email()`. */
export function isEmail(email: string): boolean {
  if (Buffer.byteLength(email) < 6) return false;
  const at = email.indexOf('@', 1);
  if (at < 0) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  if (/\.{2,}/.test(domain)) return false;
  if (/^[ \t\n\r\0\x0B.]|[ \t\n\r\0\x0B.]$/.test(domain)) return false;
  const subs = domain.split('.');
  if (subs.length < 2) return false;
  return subs.every((sub) => !/^[ \t\n\r\0\x0B-]|[ \t\n\r\0\x0B-]$/.test(sub) && /^[a-z0-9-]+$/i.test(sub));
}
