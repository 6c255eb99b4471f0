import type { RouteDefinition, RouteEndpoint } from '../rest/route-types';

/** An operation's `summary` and `description`. */
export interface OperationText {
  summary: string;
  description: string;
}

/** What the document knows of an operation when it describes it. */
export interface OperationFacts {
  route: RouteDefinition;
  endpoint: RouteEndpoint;
  method: string;
  /** What a GET answers. */
  returns: 'item' | 'list' | 'map';
  /** A POST that creates an item of the collection. */
  creates: boolean;
  /** A write or delete on a collection's route that is not a create (deleting them all). */
  onCollection: boolean;
  /** The item schema's title and description, when the route has one. */
  schema?: { title?: string; description?: string };
  /** The API's own namespace (other namespaces are named in the description). */
  ownNamespace: string;
  /** The total headers' names (lists that page). */
  totalHeader: string;
  totalPagesHeader: string;
}

const PARAM = /^\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/;

const words = (name: string) => name.replace(/[_-]+/g, ' ').trim();
const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/** "a" or "an", by the sound of the noun's first letters ("a user", "an autosave"). */
const article = (noun: string) => (/^([aeio]|u(?!s|ni|ri))/i.test(noun) ? 'an' : 'a');
const isPlural = (word: string) => /[^s]s$/.test(word) || /(ss|us)es$/.test(word) || word === 'media';

function singular(word: string): string {
  if (word === 'media') return 'media item';
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|us|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

function plural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** Path segments after the namespace: literals as words, parameters as `null`. */
function segmentsOf(route: RouteDefinition): Array<string | null> {
  const rest = route.route.slice(route.namespace.length + 1).replace(/^\/+/, '');
  if (!rest) return [];
  // Split on slashes outside parameter patterns (patterns may hold `/` in character classes, rarely).
  const out: Array<string | null> = [];
  let depth = 0;
  let current = '';
  for (const char of rest) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === '/' && depth === 0) {
      out.push(PARAM.test(current) ? null : current);
      current = '';
    } else current += char;
  }
  out.push(PARAM.test(current) ? null : current);
  return out;
}

/** Summaries of the literal actions on an item (`/users/me`, `…/introspect`), which the rules below cannot name. */
const ACTIONS: Record<string, Record<string, string>> = {
  me: { GET: 'Retrieve the current user', WRITE: 'Update the current user', DELETE: 'Delete the current user' },
  introspect: { GET: 'Retrieve the application password in use' },
  login: { WRITE: 'Log in' },
  logout: { WRITE: 'Log out' },
  nonce: { GET: 'Retrieve a new nonce' },
};

/** Routes named as a whole. */
const ROUTES: Record<string, OperationText> = {
  '/batch/v1': {
    summary: 'Run several requests in one (batch)',
    description:
      'Runs the `requests` in order, each as its own request (its method, path, body and headers), and answers each ' +
      "one's status and body. Only endpoints that allow batching can be called.",
  },
};

/**
 * The `summary` and `description` of an operation, derived once for every route from its path, its item schema and
 * the method: "List posts", "Create a post", "Retrieve a post", "Update a post", "Delete a post", "List revisions
 * of a post"… An endpoint that declares its own `summary` or `description` (when route declarations carry them)
 * keeps it.
 */
export function operationText(facts: OperationFacts): OperationText {
  const derived = derive(facts);
  const declared = facts.endpoint as RouteEndpoint & { summary?: unknown; description?: unknown };
  return {
    summary: typeof declared.summary === 'string' && declared.summary ? declared.summary : derived.summary,
    description:
      typeof declared.description === 'string' && declared.description ? declared.description : derived.description,
  };
}

function derive(facts: OperationFacts): OperationText {
  const { route, method } = facts;
  if (ROUTES[route.route]) return ROUTES[route.route];
  const segments = segmentsOf(route);
  const foreign = route.namespace && route.namespace !== facts.ownNamespace ? ` (namespace ${route.namespace})` : '';
  const extra = facts.schema?.description ? ` ${facts.schema.description.trim()}` : '';
  if (!segments.length) {
    if (method === 'GET')
      return route.namespace
        ? {
            summary: `Describe the ${route.namespace} namespace`,
            description: `The routes of the ${route.namespace} namespace, with their methods and arguments.`,
          }
        : {
            summary: 'Describe the API',
            description:
              'The site, the namespaces, every route with its methods and arguments, and how to authenticate.',
          };
    return {
      summary: `Call ${route.namespace || 'the API root'}`,
      description: `${method} on the ${route.namespace || 'root'} namespace${route.namespace === 'batch/v1' ? ': several requests in one (`requests`), each answered in order' : ''}.`,
    };
  }
  const literals = segments.filter((s): s is string => s !== null);
  const last = segments[segments.length - 1];
  const lastLiteral = literals[literals.length - 1];
  const verb = method === 'GET' ? 'GET' : method === 'DELETE' ? 'DELETE' : 'WRITE';
  const action = last !== null && (segments.length > 1 || !facts.schema) ? ACTIONS[last]?.[verb] : undefined;
  const title = facts.schema?.title ? words(facts.schema.title) : undefined;
  const collection = words(lastLiteral);
  const itemNoun = isPlural(collection) ? singular(collection) : (title ?? collection);
  const listNoun = isPlural(collection) ? collection : plural(title ?? collection);
  // A collection under an item of another (`/posts/{parent}/revisions`) is "of a post".
  const parentIndex = segments.indexOf(lastLiteral);
  const nested = segments.slice(0, parentIndex).includes(null);
  const of = nested ? ` of ${article(singular(words(literals[0])))} ${singular(words(literals[0]))}` : '';
  const target = last === null ? 'item' : segments.length === 1 || nested ? 'collection' : 'literal';
  const shaped = facts.schema ? ' The answer is shaped by `context` (`view` by default), `_fields` and `_embed`.' : '';

  if (action) return { summary: action, description: `${action}${foreign}.${method === 'GET' ? shaped : ''}${extra}` };
  if (!facts.schema && !isPlural(collection) && method !== 'GET') {
    // An action route such as `cms-auth/v1/login`.
    return {
      summary: capitalize(collection),
      description: `${capitalize(collection)}${foreign}: ${method} ${route.route.replace(/\(\?P<([^>]+)>[^)]*\)/g, '{$1}')}.${extra}`,
    };
  }
  if (method === 'GET') {
    if (facts.returns === 'list' || facts.returns === 'map' || (target === 'collection' && nested)) {
      const paging =
        facts.returns === 'list' && 'per_page' in facts.endpoint.args
          ? ` A page at a time (\`page\`, \`per_page\`); the totals are in the \`${facts.totalHeader}\` and \`${facts.totalPagesHeader}\` headers.`
          : '';
      return {
        summary: `List ${listNoun}${of}`,
        description: `Lists the ${listNoun}${of} the caller may see${foreign}.${paging}${shaped}${extra}`,
      };
    }
    if (target === 'item')
      return {
        summary: `Retrieve ${article(itemNoun)} ${itemNoun}${of}`,
        description: `Retrieves one ${itemNoun}${of} by its path parameters${foreign}.${shaped}${extra}`,
      };
    const what = target === 'collection' && isPlural(collection) ? `the ${collection}` : `the ${collection}`;
    return {
      summary: `Retrieve ${what}${of}`,
      description: `Retrieves ${what}${of}${foreign}.${shaped}${extra}`,
    };
  }
  if (method === 'DELETE') {
    if (target === 'item' || !facts.onCollection)
      return {
        summary: `Delete ${article(itemNoun)} ${itemNoun}${of}`,
        description:
          `Deletes one ${itemNoun}${of}${foreign}${'force' in facts.endpoint.args ? ' (see `force`: whether it skips the trash)' : ''}; ` +
          `the answer holds what was deleted.${extra}`,
      };
    return {
      summary: `Delete all ${listNoun}${of}`,
      description: `Deletes every ${itemNoun}${of}${foreign}.${extra}`,
    };
  }
  if (facts.creates || (target === 'collection' && nested && method === 'POST'))
    return {
      summary: `Create ${article(itemNoun)} ${itemNoun}${of}`,
      description: `Creates ${article(itemNoun)} ${itemNoun}${of} from the request's fields and answers it with \`201\`${foreign}.${extra}`,
    };
  if (target === 'item')
    return {
      summary: `Update ${article(itemNoun)} ${itemNoun}${of}`,
      description: `Updates one ${itemNoun}${of}${foreign}: the fields sent are changed, the others kept; answers the ${itemNoun} as it now is.${extra}`,
    };
  return {
    summary: `Update the ${collection}${of}`,
    description: `Updates the ${collection}${of}${foreign}: the fields sent are changed, the others kept.${extra}`,
  };
}
