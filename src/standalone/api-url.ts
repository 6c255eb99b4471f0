import { WireNames } from '../core/wire-names';
import type { CmsEnvironment } from './env';

/** The API root the server answers at (`…/cms-json/`, or `…/wp-json/` with WordPress's wire names). */
export function apiUrl(env: CmsEnvironment): string {
  return `${env.CMS_BASE_URL ?? `http://localhost:${env.PORT}`}/${WireNames.of(env.CMS_WIRE_NAMES).root}/`;
}
