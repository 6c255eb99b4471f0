import { Injectable } from '@nestjs/common';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a hook's arguments are the hook's own (any listener fits)
type Handler = (...args: any[]) => unknown;

interface Entry {
  handler: Handler;
  priority: number;
  seq: number;
}

/**
 * Actions and filters with the reference's hook names (`rest_prepare_post`, `rest_insert_category`, ...).
 * Handlers run in priority order (lower first, then registration order) and are awaited one after another,
 * so they may be async. Hooks are server-side only; nothing here reaches API clients.
 *
 * @example
 * hooks.addFilter('rest_prepare_status', (response, status, req) => response, 10);
 */
@Injectable()
export class HookRegistry {
  private readonly hooks = new Map<string, Entry[]>();
  private seq = 0;
  /** Moves whenever a handler is added or removed: answers prepared through the old ones are not reused. */
  generation = 0;

  addFilter(name: string, handler: Handler, priority = 10): () => void {
    this.generation++;
    const list = this.hooks.get(name) ?? [];
    const entry = { handler, priority, seq: this.seq++ };
    list.push(entry);
    list.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
    this.hooks.set(name, list);
    // The returned remover removes this registration only.
    return () => {
      this.generation++;
      this.hooks.set(
        name,
        (this.hooks.get(name) ?? []).filter((e) => e !== entry),
      );
    };
  }

  addAction(name: string, handler: Handler, priority = 10): () => void {
    return this.addFilter(name, handler, priority);
  }

  removeFilter(name: string, handler: Handler): void {
    const list = this.hooks.get(name);
    this.generation++;
    if (list)
      this.hooks.set(
        name,
        list.filter((e) => e.handler !== handler),
      );
  }

  removeAction(name: string, handler: Handler): void {
    this.removeFilter(name, handler);
  }

  hasHook(name: string): boolean {
    return (this.hooks.get(name)?.length ?? 0) > 0;
  }

  /** Whether a handler is registered on a hook whose name starts with `prefix` (`rest_prepare_`). */
  hasHookPrefix(prefix: string): boolean {
    for (const [name, list] of this.hooks) if (list.length && name.startsWith(prefix)) return true;
    return false;
  }

  /** Passes `value` through every filter of `name`; each gets the previous result and the extra arguments. */
  async applyFilters<T>(name: string, value: T, ...args: unknown[]): Promise<T> {
    const list = this.hooks.get(name);
    if (!list) return value;
    let current = value;
    for (const entry of [...list]) current = (await entry.handler(current, ...args)) as T;
    return current;
  }

  /** Runs every action of `name` with the arguments. */
  async doAction(name: string, ...args: unknown[]): Promise<void> {
    const list = this.hooks.get(name);
    if (!list) return;
    for (const entry of [...list]) await entry.handler(...args);
  }
}
