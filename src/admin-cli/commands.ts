import { CommandSpec, usageOf } from './command-line';

/** The `webhook` commands, for the CLI's command list. */
const WEBHOOK_COMMANDS: CommandSpec[] = [
  {
    name: 'webhook create',
    args: '<url>',
    required: ['url'],
    options: {
      events: 'Comma-separated events (post.published, term.created, ...) or * (default *).',
      secret: 'The signing secret, whsec_ followed by base64 (default: a generated one, printed once).',
    },
    summary: 'Subscribe a URL to events; prints its ID and signing secret (shown only now).',
  },
  { name: 'webhook list', args: '', required: [], summary: 'List webhook subscriptions: ID, URL, events, state.' },
  { name: 'webhook delete', args: '<id>', required: ['id'], summary: 'Delete a webhook subscription and its log.' },
];

/** Every command of the CLI, in the order of the help. */
export const COMMANDS: CommandSpec[] = [
  {
    name: 'user create',
    args: '<username> <email>',
    required: ['username', 'email'],
    options: {
      role: "The user's role (default: the site's default role, subscriber).",
      password: 'The password (default: a generated one, printed).',
    },
    summary: 'Create a user; prints its ID and login, and the password when it was generated.',
  },
  { name: 'user list', args: '', required: [], summary: 'List users: ID, login, e-mail, roles.' },
  {
    name: 'user delete',
    args: '<user>',
    required: ['user'],
    options: { reassign: 'Give their posts to this user (login or ID).' },
    flags: { 'delete-content': 'Delete their posts (of the types deleted with their author, as WordPress does).' },
    summary: 'Delete a user (login or ID). A user who has posts needs --reassign or --delete-content.',
  },
  {
    name: 'user set-role',
    args: '<user> <role>',
    required: ['user', 'role'],
    summary: "Replace the user's roles with this role.",
  },
  {
    name: 'user reset-password',
    args: '<user>',
    required: ['user'],
    options: { password: 'The new password (default: a generated one, printed).' },
    summary: "Set a new login password; prints it when generated. The user's login sessions end.",
  },
  {
    name: 'app-password create',
    args: '<username> [name]',
    required: ['username'],
    optional: ['name'],
    summary: 'Create an application password (name default: cli) and print only the password.',
    details: 'e.g. PASS=$(npm run -s cms -- app-password create admin)',
  },
  {
    name: 'app-password list',
    args: '<username>',
    required: ['username'],
    summary: "List the user's application passwords: UUID, name, created, last used, last IP (never the password).",
  },
  {
    name: 'app-password revoke',
    args: '<username> [uuid]',
    required: ['username'],
    optional: ['uuid'],
    flags: { all: "Revoke all the user's application passwords." },
    summary: 'Revoke one application password by UUID, or all of them with --all.',
  },
  ...WEBHOOK_COMMANDS,
  {
    name: 'migrate',
    args: '',
    required: [],
    summary:
      'Run the schema migrations and the first-start set-up (default site, CMS_ADMIN_USER administrator) and print what ran.',
  },
  {
    name: 'migrate:status',
    args: '',
    required: [],
    summary: 'List the migrations, applied or pending; writes nothing.',
  },
  {
    name: 'triggers install',
    args: '',
    required: [],
    summary: "Install the triggers that move the version stamps on every writer's writes (WordPress, SQL by hand).",
    details:
      'With them, the response cache and the memos stay exact while WordPress writes the same database. Run it\n' +
      'again after an upgrade: it creates each trigger anew. On MySQL with binary logging, needs the TRIGGER\n' +
      'privilege and log_bin_trust_function_creators=1 (or SUPER).',
  },
  {
    name: 'triggers remove',
    args: '',
    required: [],
    summary: 'Drop the stamp triggers (the tables and their rows are untouched).',
  },
  {
    name: 'triggers status',
    args: '',
    required: [],
    summary: 'Say whether the stamp triggers are installed, absent or incomplete; writes nothing.',
  },
  {
    name: 'option get',
    args: '<name>',
    required: ['name'],
    summary: 'Print an option: text as it is, arrays and objects (PHP-serialized) as JSON.',
  },
  {
    name: 'option set',
    args: '<name> <value>',
    required: ['name', 'value'],
    flags: { json: 'The value is JSON (arrays and objects are stored PHP-serialized, as WordPress stores them).' },
    summary: 'Create or change an option.',
  },
  {
    name: 'site-url get',
    args: '',
    required: [],
    summary:
      "Print the site's address: the home and siteurl options, which links, GUIDs and media URLs are written with.",
  },
  {
    name: 'site-url set',
    args: '<url>',
    required: ['url'],
    flags: {
      'search-replace': 'Then replace the old address with the new one in content and meta (see search-replace).',
      'dry-run': 'Write nothing: say what would change.',
    },
    options: { tables: 'With --search-replace: only these tables, comma-separated.' },
    summary: "Change the site's address (home and siteurl) and print each change, old → new.",
    details:
      'The address is an http(s) URL, with a path or not (https://example.com, https://example.com/blog). Post links\n' +
      'follow at once; GUIDs and links stored in content keep the old address unless --search-replace is given.\n' +
      'Run it when the server starts with a CMS_BASE_URL other than the stored address (the log says so).',
  },
  {
    name: 'search-replace',
    args: '<old> <new>',
    required: ['old', 'new'],
    flags: { 'dry-run': 'Write nothing: count what would change.' },
    options: {
      tables:
        'Only these tables, comma-separated (default: posts, postmeta, options, comments, commentmeta, termmeta, usermeta).',
    },
    summary: 'Replace a text in content and meta, PHP-serialized values included; prints the counts per table.',
    details:
      "Like wp search-replace: posts' content, excerpt and GUID, comments' content and author URL, and the values of\n" +
      'options and post, comment, term and user meta. Serialized values are rewritten with their string lengths\n' +
      'recomputed; malformed ones are left alone and counted. Case-sensitive; 200 rows per transaction.',
  },
  {
    name: 'import',
    args: '<file.xml>',
    required: ['file'],
    options: {
      authors:
        'The file\'s authors: create (default) the ones missing, admin (give everything to the first administrator), or map:<file.json> ({ "fileLogin": "existingLogin" }; the others are created).',
      report: 'Also write the report (every item, its outcome and reason, and the counts) to this JSON file.',
    },
    flags: {
      'fetch-attachments': 'Download the attachments and store them with their image sizes (else kept by reference).',
      'allow-private-urls': 'With --fetch-attachments: allow private and loopback hosts (refused by default).',
      'dry-run': 'Report what would be created and skipped, and write nothing.',
    },
    summary:
      'Import a WordPress export (WXR 1.0-1.2): authors, terms, posts of every type, attachments, menus and comments.',
    details:
      "Posts already there (same title, date and type, as WordPress's importer matches them) are skipped, so running it\n" +
      "again creates nothing; the file's post ids are kept where free. Prints every item created, skipped (and why) or\n" +
      'failed (and why), then the counts per type; exit code 1 if anything failed. See docs/import.md.',
  },
  {
    name: 'export',
    args: '',
    required: [],
    options: {
      output: 'Write to this file (default: standard output).',
      'post-type': 'Only these post types, comma-separated (default: every type but revisions and auto-drafts).',
    },
    summary: "Write the site's content as WXR 1.2, the format of WordPress's own export.",
  },
];

/** The main help (`help`, `--help`). */
export const USAGE = `Usage: npm run cms -- <command>

Commands:
${COMMANDS.map((c) => `  ${usageOf(c)}\n      ${c.summary}`).join('\n')}
  help [command]
      Show this help, or a command's help (also: <command> --help).

The database and options come from the server's environment variables (DATABASE_URL,
CMS_TABLE_PREFIX, ...). Errors go to stderr with exit code 1.
`;
