/** `_fields`: the reference's rest_filter_response_fields. */

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keeps only the fields named in `_fields` (dotted paths reach into objects). */
export function filterFields(data: unknown, fieldsParam: unknown, embedding: boolean): unknown {
  const fields = (Array.isArray(fieldsParam) ? fieldsParam.map(String) : String(fieldsParam).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  if (!fields.length) return data;
  if (embedding && !fields.includes('_embedded')) fields.push('_embedded', '_links');
  const pick = (item: unknown): unknown => {
    if (!isPlainObject(item)) return item;
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const path = field.split('.');
      let src: unknown = item;
      let dst: Record<string, unknown> = out;
      for (let i = 0; i < path.length; i++) {
        if (!isPlainObject(src) || !(path[i] in src)) break;
        const value: unknown = src[path[i]];
        if (i === path.length - 1) dst[path[i]] = value;
        else {
          if (!isPlainObject(dst[path[i]])) dst[path[i]] = {};
          dst = dst[path[i]] as Record<string, unknown>;
          src = value;
        }
      }
    }
    return out;
  };
  return Array.isArray(data) ? data.map(pick) : pick(data);
}
