import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { RestException } from '../errors/rest.exception';
import { runTextFilter, TextFilterArgs, TextFilterName, TextFilterTask } from './text-filters';

/**
 * Texts up to this many characters (all of a task's texts together) are filtered in the request's thread: the
 * filters are linear in their input, and this size costs at most a few milliseconds. Larger ones go to a worker.
 */
export const INLINE_FILTER_CHARS = 32 * 1024;

/**
 * Milliseconds a task sent to a worker may take, waiting in the queue included; a worker past it is terminated and
 * the request answered `503 rest_text_filter_timeout`. The largest text a request can write (see text-limits.ts)
 * takes a few seconds, so the bound is reached only by a server too busy to answer in time.
 */
export const FILTER_TIMEOUT_MS = 20_000;

/** Tasks that may wait for a worker; more are refused with `503 rest_text_filter_busy`. */
export const FILTER_QUEUE = 32;

/** Heap a worker may use (megabytes) before it is terminated (`413 rest_text_too_complex`). */
export const FILTER_WORKER_HEAP_MB = 512;

/** Milliseconds an idle worker is kept; then it exits and its memory is returned. */
export const FILTER_IDLE_MS = 10_000;

let pool: Piscina | undefined;

/** The process's pool of text-filter workers, made on first use: one thread, two where there are four cores or more. */
function filterPool(): Piscina {
  if (!pool) {
    // Under ts-node or ts-jest this module is TypeScript, and so is its worker: the worker registers ts-node.
    const typescript = __filename.endsWith('.ts');
    pool = new Piscina({
      filename: join(__dirname, `text-filter.worker.${typescript ? 'ts' : 'js'}`),
      name: 'default',
      minThreads: 0,
      maxThreads: Math.max(1, Math.min(2, availableParallelism() - 2)),
      idleTimeout: FILTER_IDLE_MS,
      maxQueue: FILTER_QUEUE,
      resourceLimits: { maxOldGenerationSizeMb: FILTER_WORKER_HEAP_MB },
      ...(typescript ? { execArgv: ['-r', 'ts-node/register/transpile-only'] } : {}),
    });
  }
  return pool;
}

/** Closes the pool's workers (the standalone server's shutdown; tests). A later task makes a new pool. */
export async function closeTextFilterPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}

/** Closes the pool's workers when the application shuts down. */
@Injectable()
export class TextFilterPoolShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return closeTextFilterPool();
  }
}

function charsOf(args: readonly unknown[]): number {
  let chars = 0;
  for (const arg of args) if (typeof arg === 'string') chars += arg.length;
  return chars;
}

/**
 * Runs a text filter of {@link TEXT_FILTERS}: in this thread when its texts are small, otherwise in a worker thread,
 * so that a large post being filtered or rendered does not hold up other requests. The worker's time, memory and
 * queue are bounded; past a bound the request gets a JSON error that says which.
 */
export async function filterText<F extends TextFilterName>(filter: F, ...args: TextFilterArgs<F>): Promise<string> {
  const task = { filter, args } as TextFilterTask<F>;
  if (charsOf(args) <= INLINE_FILTER_CHARS) return runTextFilter(task);
  let result: unknown;
  try {
    result = await filterPool().run(task, { signal: AbortSignal.timeout(FILTER_TIMEOUT_MS) });
  } catch (error) {
    throw filterError(error);
  }
  return result as string;
}

/** What a failed task is answered with. */
function filterError(error: unknown): unknown {
  const e = error as { name?: string; code?: string; message?: string };
  if (e.name === 'AbortError' || e.name === 'TimeoutError') {
    return new RestException(
      'rest_text_filter_timeout',
      'The text could not be filtered in time; try again later or send a shorter text.',
      503,
    );
  }
  if (e.message === 'Task queue is at limit') {
    return new RestException('rest_text_filter_busy', 'Too many large texts are being filtered; try again later.', 503);
  }
  if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new RestException('rest_text_too_complex', 'The text is too complex to filter.', 413);
  }
  return error;
}
