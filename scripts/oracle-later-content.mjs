#!/usr/bin/env node
// Adds what the oracle's seed.mjs does not make, through the WordPress REST API of the server at BASE (the oracle
// WordPress, after seed.mjs): a menu with two items, a reusable block, and an autosave of a published post.
// Prints the ids as JSON. Used to make test/fixtures/oracle-requests.txt (see docs/testing.md).
//   BASE=http://127.0.0.1:8090 AUTH=admin:APP_PASSWORD node scripts/oracle-later-content.mjs
const base = (process.env.BASE ?? 'http://127.0.0.1:8090').replace(/\/+$/, '');
const root = process.env.ROOT ?? 'wp-json';
const ns = process.env.NS ?? 'wp/v2';
const auth = `Basic ${Buffer.from(process.env.AUTH ?? '').toString('base64')}`;

async function call(method, path, body) {
  const res = await fetch(`${base}/${root}/${ns}/${path}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

const posts = await call('GET', 'posts?per_page=1&orderby=id&order=asc');
const post = posts[0];
const menu = await call('POST', 'menus', { name: 'Main navigation', description: 'Header links' });
const link = await call('POST', 'menu-items', {
  title: 'Documentation',
  url: 'https://example.org/docs/',
  type: 'custom',
  menus: menu.id,
  menu_order: 1,
});
const postItem = await call('POST', 'menu-items', {
  type: 'post_type',
  object: 'post',
  object_id: post.id,
  menus: menu.id,
  menu_order: 2,
});
const block = await call('POST', 'blocks', {
  title: 'Call to action',
  content: '<!-- wp:paragraph --><p>Subscribe to the river newsletter.</p><!-- /wp:paragraph -->',
  status: 'publish',
});
const autosave = await call('POST', `posts/${post.id}/autosaves`, {
  title: post.title.rendered,
  content: 'An autosaved river draft.',
});
console.log(
  JSON.stringify({
    post: post.id,
    menu: menu.id,
    link: link.id,
    postItem: postItem.id,
    block: block.id,
    autosave: autosave.id,
  }),
);
