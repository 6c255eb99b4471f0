import { runTextFilter, TextFilterTask } from './text-filters';

/** A worker of the {@link TextFilterPool}: runs one text filter task. */
export default function filterText(task: TextFilterTask): string {
  return runTextFilter(task);
}
