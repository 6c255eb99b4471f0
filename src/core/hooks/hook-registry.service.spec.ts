import { HookRegistry } from './hook-registry.service';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('HookRegistry', () => {
  let hooks: HookRegistry;

  beforeEach(() => {
    hooks = new HookRegistry();
  });

  describe('applyFilters', () => {
    it('returns the value unchanged when no filter is registered', async () => {
      const value = { a: 1 };
      await expect(hooks.applyFilters('rest_prepare_post', value)).resolves.toBe(value);
    });

    it('passes the value through every filter, each getting the previous result', async () => {
      hooks.addFilter('f', (v: number) => v + 1);
      hooks.addFilter('f', (v: number) => v * 10);
      await expect(hooks.applyFilters('f', 1)).resolves.toBe(20);
    });

    it('runs lower priorities first, whatever the registration order', async () => {
      hooks.addFilter('f', (v: string) => `${v}[20]`, 20);
      hooks.addFilter('f', (v: string) => `${v}[5]`, 5);
      hooks.addFilter('f', (v: string) => `${v}[10]`);
      hooks.addFilter('f', (v: string) => `${v}[-1]`, -1);
      await expect(hooks.applyFilters('f', '')).resolves.toBe('[-1][5][10][20]');
    });

    it('runs filters of the same priority in registration order', async () => {
      hooks.addFilter('f', (v: string) => `${v}a`, 10);
      hooks.addFilter('f', (v: string) => `${v}b`, 5);
      hooks.addFilter('f', (v: string) => `${v}c`, 10);
      hooks.addFilter('f', (v: string) => `${v}d`, 5);
      hooks.addFilter('f', (v: string) => `${v}e`, 10);
      await expect(hooks.applyFilters('f', '')).resolves.toBe('bdace');
    });

    it('gives every filter the extra arguments', async () => {
      const first = jest.fn((v: string) => `${v}1`);
      const second = jest.fn((v: string) => `${v}2`);
      hooks.addFilter('rest_prepare_post', first);
      hooks.addFilter('rest_prepare_post', second);
      const post = { id: 5 };
      const request = { method: 'GET' };
      await expect(hooks.applyFilters('rest_prepare_post', 'x', post, request)).resolves.toBe('x12');
      expect(first).toHaveBeenCalledWith('x', post, request);
      expect(second).toHaveBeenCalledWith('x1', post, request);
    });

    it('awaits async filters in order, passing the resolved value on', async () => {
      const events: string[] = [];
      hooks.addFilter('f', async (v: number) => {
        events.push('slow start');
        await tick();
        await tick();
        events.push('slow end');
        return v + 1;
      });
      hooks.addFilter('f', (v: number) => {
        events.push(`sync sees ${v}`);
        return v * 2;
      });
      await expect(hooks.applyFilters('f', 1)).resolves.toBe(4);
      expect(events).toEqual(['slow start', 'slow end', 'sync sees 2']);
    });

    it('rejects with the error of a throwing filter and stops the chain', async () => {
      const after = jest.fn((v: unknown) => v);
      hooks.addFilter('f', () => {
        throw new Error('boom');
      });
      hooks.addFilter('f', after);
      await expect(hooks.applyFilters('f', 1)).rejects.toThrow('boom');
      expect(after).not.toHaveBeenCalled();
    });

    it('keeps hooks of different names apart', async () => {
      hooks.addFilter('a', (v: string) => `${v}a`);
      hooks.addFilter('b', (v: string) => `${v}b`);
      await expect(hooks.applyFilters('a', '')).resolves.toBe('a');
      await expect(hooks.applyFilters('b', '')).resolves.toBe('b');
    });

    it('runs the list as it was when the filters started, even if a filter adds another', async () => {
      const late = jest.fn((v: string) => `${v}late`);
      hooks.addFilter('f', (v: string) => {
        hooks.addFilter('f', late, 99);
        return `${v}first`;
      });
      await expect(hooks.applyFilters('f', '')).resolves.toBe('first');
      expect(late).not.toHaveBeenCalled();
    });
  });

  describe('doAction', () => {
    it('does nothing when no action is registered', async () => {
      await expect(hooks.doAction('rest_api_init', {})).resolves.toBeUndefined();
    });

    it('runs actions by priority then registration order, with all the arguments', async () => {
      const calls: Array<[string, unknown[]]> = [];
      hooks.addAction('rest_insert_post', (...args: unknown[]) => calls.push(['late', args]), 20);
      hooks.addAction('rest_insert_post', (...args: unknown[]) => calls.push(['first', args]));
      hooks.addAction('rest_insert_post', (...args: unknown[]) => calls.push(['second', args]));
      await hooks.doAction('rest_insert_post', 'post', 'request', true);
      expect(calls).toEqual([
        ['first', ['post', 'request', true]],
        ['second', ['post', 'request', true]],
        ['late', ['post', 'request', true]],
      ]);
    });

    it('awaits each async action before starting the next', async () => {
      const events: string[] = [];
      hooks.addAction('a', async () => {
        events.push('1 start');
        await tick();
        events.push('1 end');
      });
      hooks.addAction('a', async () => {
        events.push('2 start');
        await tick();
        events.push('2 end');
      });
      await hooks.doAction('a');
      expect(events).toEqual(['1 start', '1 end', '2 start', '2 end']);
    });

    it('does not let an action change the arguments of the next one through its return value', async () => {
      const second = jest.fn();
      hooks.addAction('a', () => 'ignored');
      hooks.addAction('a', second);
      await hooks.doAction('a', 'arg');
      expect(second).toHaveBeenCalledWith('arg');
    });

    it('shares the registry with filters: an action is a filter of the same name', async () => {
      hooks.addAction('shared', (v: number) => v + 1);
      await expect(hooks.applyFilters('shared', 1)).resolves.toBe(2);
    });
  });

  describe('removal', () => {
    it('removes a filter with the function addFilter returned', async () => {
      const remove = hooks.addFilter('f', (v: string) => `${v}x`);
      hooks.addFilter('f', (v: string) => `${v}y`);
      remove();
      await expect(hooks.applyFilters('f', '')).resolves.toBe('y');
    });

    it('removes a filter with removeFilter and the same handler', async () => {
      const handler = (v: string) => `${v}x`;
      hooks.addFilter('f', handler);
      hooks.addFilter('f', (v: string) => `${v}y`);
      hooks.removeFilter('f', handler);
      await expect(hooks.applyFilters('f', '')).resolves.toBe('y');
    });

    it('removes an action with removeAction or the returned function', async () => {
      const a = jest.fn();
      const b = jest.fn();
      hooks.addAction('act', a);
      const removeB = hooks.addAction('act', b);
      hooks.removeAction('act', a);
      removeB();
      await hooks.doAction('act');
      expect(a).not.toHaveBeenCalled();
      expect(b).not.toHaveBeenCalled();
    });

    it('removes only its own registration with the returned function when a handler is added twice', async () => {
      const handler = jest.fn((v: number) => v + 1);
      const removeFirst = hooks.addFilter('f', handler, 10);
      hooks.addFilter('f', handler, 20);
      removeFirst();
      expect(hooks.hasHook('f')).toBe(true);
      await expect(hooks.applyFilters('f', 0)).resolves.toBe(1);
      expect(handler).toHaveBeenCalledTimes(1);
    });

    it('only removes the handler from the named hook', async () => {
      const handler = (v: string) => `${v}x`;
      hooks.addFilter('a', handler);
      hooks.addFilter('b', handler);
      hooks.removeFilter('a', handler);
      await expect(hooks.applyFilters('a', '')).resolves.toBe('');
      await expect(hooks.applyFilters('b', '')).resolves.toBe('x');
    });

    it('ignores removal of an unknown hook or handler', async () => {
      hooks.addFilter('f', (v: string) => `${v}x`);
      expect(() => hooks.removeFilter('nothing', () => 0)).not.toThrow();
      expect(() => hooks.removeFilter('f', () => 0)).not.toThrow();
      await expect(hooks.applyFilters('f', '')).resolves.toBe('x');
    });
  });

  describe('hasHook', () => {
    it('is false for a hook never registered', () => {
      expect(hooks.hasHook('rest_prepare_post')).toBe(false);
    });

    it('is true once a filter or an action is registered', () => {
      hooks.addFilter('f', (v: unknown) => v);
      hooks.addAction('a', () => undefined);
      expect(hooks.hasHook('f')).toBe(true);
      expect(hooks.hasHook('a')).toBe(true);
      expect(hooks.hasHook('other')).toBe(false);
    });

    it('is false again after the last handler is removed', () => {
      const one = (v: unknown) => v;
      const two = (v: unknown) => v;
      hooks.addFilter('f', one);
      const removeTwo = hooks.addFilter('f', two);
      hooks.removeFilter('f', one);
      expect(hooks.hasHook('f')).toBe(true);
      removeTwo();
      expect(hooks.hasHook('f')).toBe(false);
    });
  });
});
