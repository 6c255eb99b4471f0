import { RestException } from '../../core/errors/rest.exception';
import { textOf } from '../../core/formatting/php-serialize';

/*
 * A post's `template` as WordPress 6.1 checks it (WP_REST_Posts_Controller::check_template, the argument's validate
 * callback): nothing (a value PHP reads as false), one of the type's page templates, or the post's current one —
 * kept even when no longer offered; anything else is `400 rest_invalid_param` "template is not one of <files>.".
 * The spec's dialect instead stores an unknown template as `''`.
 */

/** What PHP's `! $value` reads as false: `''`, `'0'`, `0`, `false`, `null`, an empty list or object. */
function phpFalsy(value: unknown): boolean {
  if (value === null || value === false || value === 0 || value === '' || value === '0') return true;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** WordPress's words for a template that is none of `templates`. */
function templateMessage(templates: Record<string, string>): string {
  return `template is not one of ${Object.keys(templates).join(', ')}.`;
}

/** The refusal of a template that is none of `templates`, as argument validation answers it (details included). */
function templateRefused(templates: Record<string, string>): RestException {
  const message = templateMessage(templates);
  return new RestException('rest_invalid_param', 'Invalid parameter(s): template', 400, {
    params: { template: message },
    details: { template: { code: 'rest_invalid_param', message, data: null } },
  });
}

/**
 * The `template` argument's check. `current` is the post's template, `''` for a new post; `undefined` on an update,
 * whose unknown template is then checked against the post by {@link checkTemplateOfPost} (the check cannot read it).
 */
export function checkTemplateArg(
  value: unknown,
  templates: Record<string, string>,
  current: string | undefined,
): true | { code: string; message: string } {
  if (phpFalsy(value)) return true;
  if ((typeof value === 'string' || typeof value === 'number') && Object.hasOwn(templates, String(value))) return true;
  if (typeof value === 'string' && (current === undefined || value === current)) return true;
  return { code: 'rest_invalid_param', message: templateMessage(templates) };
}

/** The post's current template (get_page_template_slug(): `''` for none or `default`). */
export function currentTemplate(stored: unknown): string {
  const template = textOf(stored);
  return template === 'default' ? '' : template;
}

/** An update's template, already checked as an argument: one of `templates`, or the post's `current` one. */
export function checkTemplateOfPost(value: string, templates: Record<string, string>, current: string): void {
  if (value && value !== current && !Object.hasOwn(templates, value)) throw templateRefused(templates);
}
