import { RestException } from '../../core/errors/rest.exception';
import { checkTemplateArg, checkTemplateOfPost, currentTemplate } from './post-template';

describe("a post's template as WordPress 6.1 checks it (check_template)", () => {
  const templates = { 'templates/wide.php': 'Wide', 'templates/narrow.php': 'Narrow' };
  const refused = {
    code: 'rest_invalid_param',
    message: 'template is not one of templates/wide.php, templates/narrow.php.',
  };

  it.each([[''], ['0'], [0], [false], [null], [[]], [{}]])('takes %p, which PHP reads as false', (value) => {
    expect(checkTemplateArg(value, templates, '')).toBe(true);
  });

  it('takes an offered template, a number as the key PHP reads it as, and refuses anything else', () => {
    expect(checkTemplateArg('templates/wide.php', templates, '')).toBe(true);
    expect(checkTemplateArg(7, { '7': 'Numbered' }, '')).toBe(true);
    expect(checkTemplateArg('other.php', templates, '')).toEqual(refused);
    expect(checkTemplateArg(5, templates, '')).toEqual(refused);
    expect(checkTemplateArg(['x'], templates, '')).toEqual(refused);
    expect(checkTemplateArg(true, templates, '')).toEqual(refused);
    // Not a key inherited by every object.
    expect(checkTemplateArg('constructor', {}, '')).toEqual({
      code: 'rest_invalid_param',
      message: 'template is not one of .',
    });
  });

  it("takes the post's current template, and leaves a string to the handler when the current one is unknown", () => {
    expect(checkTemplateArg('legacy.php', templates, 'legacy.php')).toBe(true);
    expect(checkTemplateArg('legacy.php', templates, undefined)).toBe(true);
    expect(checkTemplateArg(5, templates, undefined)).toEqual(refused);
  });

  it('checks an update against the stored template (get_page_template_slug: "default" is none)', () => {
    expect(currentTemplate('default')).toBe('');
    expect(currentTemplate(undefined)).toBe('');
    expect(currentTemplate('legacy.php')).toBe('legacy.php');
    expect(() => checkTemplateOfPost('legacy.php', templates, 'legacy.php')).not.toThrow();
    expect(() => checkTemplateOfPost('', templates, 'legacy.php')).not.toThrow();
    expect(() => checkTemplateOfPost('templates/wide.php', templates, '')).not.toThrow();
    let error: unknown;
    try {
      checkTemplateOfPost('other.php', templates, 'legacy.php');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RestException);
    expect((error as RestException).toBody()).toEqual({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): template',
      data: {
        status: 400,
        params: { template: refused.message },
        details: { template: { ...refused, data: null } },
      },
    });
  });
});
