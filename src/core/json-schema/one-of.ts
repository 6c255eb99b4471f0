import type { ValidationWords } from '../dialect/wordpress-61-validation';
import type { JsonSchema } from './json-schema';
import type { ValidationFailure } from './validate';

/** How a value is validated against one schema (validate.ts's checkValue, passed in to keep the imports one way). */
type Check = (value: unknown, schema: JsonSchema, name: string, words: ValidationWords) => ValidationFailure | null;

interface SchemaError {
  failure: ValidationFailure;
  schema: JsonSchema;
  index: number;
}

/** WordPress's rest_is_array() of an object: a PHP list (numeric keys) only. */
function isList(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
  return Object.keys(value).every((key) => /^\d+$/.test(key));
}

/** rest_format_combining_operation_error(). */
function formatError(name: string, error: SchemaError, words: ValidationWords): ValidationFailure {
  const reason = error.failure.message;
  const title = error.schema.title;
  const make = words.messages;
  if (title)
    return {
      kind: 'noMatchingTitled',
      input: { param: name, title, reason, position: error.index },
      message: make.noMatchingTitled({ param: name, title, reason, position: error.index }),
    };
  return {
    kind: 'noMatching',
    input: { param: name, reason, position: error.index },
    message: make.noMatching({ param: name, reason, position: error.index }),
  };
}

/** rest_get_combining_operation_error(): the failure of a value no schema of `oneOf` matches. */
function combiningFailure(value: unknown, name: string, errors: SchemaError[], words: ValidationWords) {
  if (errors.length === 1) return formatError(name, errors[0], words);
  // Type failures of the value itself say nothing of which schema was meant.
  const kept = errors.filter(
    (e) => !((e.failure.kind === 'type' || e.failure.kind === 'types') && e.failure.input.param === name),
  );
  if (kept.length === 1) return formatError(name, kept[0], words);
  if (kept.length > 1 && kept[0].schema.type === 'object' && typeof value === 'object' && value !== null) {
    let best: SchemaError | null = null;
    let most = 0;
    for (const e of kept) {
      const n = Object.keys(e.schema.properties ?? {}).filter((key) => key in value).length;
      if (n > most) [best, most] = [e, n];
    }
    if (best) return formatError(name, best, words);
  }
  const titles = errors.map((e) => e.schema.title).filter((t): t is string => typeof t === 'string');
  if (titles.length === errors.length)
    return {
      kind: 'noMatchingTitles',
      input: { param: name, titles },
      message: words.messages.noMatchingTitles({ param: name, titles }),
    } as ValidationFailure;
  return {
    kind: 'noMatchingAny',
    input: { param: name },
    message: words.messages.noMatchingAny({ param: name }),
  } as ValidationFailure;
}

/**
 * `oneOf` (rest_find_one_matching_schema()): the value must match exactly one of the schemas (each taking the
 * parent's `type` when it has none); `null` when it does.
 */
export function checkOneOf(
  value: unknown,
  schema: JsonSchema,
  name: string,
  words: ValidationWords,
  check: Check,
): ValidationFailure | null {
  const matches: Array<{ schema: JsonSchema; index: number }> = [];
  const errors: SchemaError[] = [];
  (schema.oneOf as JsonSchema[]).forEach((one, index) => {
    const sub = one.type === undefined && schema.type !== undefined ? { ...one, type: schema.type } : one;
    const failure =
      sub.type === 'array' && !isList(value)
        ? ({
            kind: 'type',
            input: { param: name, type: 'array', value },
            message: words.messages.type({ param: name, type: 'array', value }),
          } as ValidationFailure)
        : check(value, sub, name, words);
    if (failure) errors.push({ failure, schema: sub, index });
    else matches.push({ schema: sub, index });
  });
  if (!matches.length) return combiningFailure(value, name, errors, words);
  if (matches.length === 1) return null;
  const positions = matches.map((m) => m.index);
  const titles = matches.map((m) => m.schema.title).filter((t): t is string => typeof t === 'string');
  if (titles.length === matches.length)
    return {
      kind: 'oneOfMultipleTitled',
      input: { param: name, titles, positions },
      message: words.messages.oneOfMultipleTitled({ param: name, titles, positions }),
    };
  return {
    kind: 'oneOfMultiple',
    input: { param: name, positions },
    message: words.messages.oneOfMultiple({ param: name, positions }),
  };
}
