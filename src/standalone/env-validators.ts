import { IsInt, Max, Min, ValidateBy, ValidationOptions } from 'class-validator';
import { isEmail } from '../core/formatting/is-email';
import { sanitizeUserLogin } from '../core/formatting/sanitize-text';

/** A login WordPress accepts unchanged (`sanitize_user( $login, true )`), at most 60 characters. */
export function IsWordPressLogin(options: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWordPressLogin',
      validator: { validate: (v) => typeof v === 'string' && v.length <= 60 && sanitizeUserLogin(v) === v },
    },
    options,
  );
}

/** An address WordPress's `is_email()` accepts, at most 100 characters (the `user_email` column). */
export function IsWordPressEmail(options: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWordPressEmail',
      validator: { validate: (v) => typeof v === 'string' && v.length <= 100 && isEmail(v) },
    },
    options,
  );
}

/**
 * A whole number from `min` to `max` (no upper bound without `max`), with one message for any value outside: what
 * `@IsInt() @Min(min) @Max(max)` with that message each check, in their order.
 */
export function IsIntegerWithin(message: string, min: number, max?: number): PropertyDecorator {
  const options = { message };
  return (target, key) => {
    if (max !== undefined) Max(max, options)(target, key);
    Min(min, options)(target, key);
    IsInt(options)(target, key);
  };
}
