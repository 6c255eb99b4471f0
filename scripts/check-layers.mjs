// The layering check (npm run lint:layers): no runtime import cycle between the top-level folders of src/
// (core, resources, extensions, standalone, admin-cli; each file at the root of src/ is a node of its own: the
// entry points and the module that assembles the rest) nor between the folders of src/core/; and a resource uses
// another resource only through that resource's public surface, its folder's index.ts.
// Type-only imports are erased at compile time and do not count. Reads the import graph with dependency-cruiser.
import { cruise } from 'dependency-cruiser';

const result = await cruise(['src'], {
  tsConfig: { fileName: 'tsconfig.json' },
  tsPreCompilationDeps: true,
  exclude: { path: '\\.spec\\.ts$' },
  doNotFollow: { path: 'node_modules' },
});

/** The layer a file belongs to: `core/<folder>` inside core, else the top-level folder (or the root file). */
function layerOf(path) {
  const parts = path.replace(/^src\//, '').split('/');
  if (parts[0] === 'core') return parts.length > 2 ? `core/${parts[1]}` : 'core';
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.ts$/, '');
}

const isRuntime = (dependency) =>
  !dependency.dependencyTypes.some((t) => t === 'type-only' || t === 'type-import' || t === 'pre-compilation-only');

const edges = new Map(); // layer -> Map(layer -> [example "from -> to"])
const intoInternals = []; // resource -> another resource's file that is not its index.ts
const resourceOf = (path) => /^src\/resources\/([^/]+)\//.exec(path)?.[1];
for (const module of result.output.modules) {
  if (!module.source.startsWith('src/')) continue;
  for (const dependency of module.dependencies) {
    const user = resourceOf(module.source);
    const used = resourceOf(dependency.resolved);
    if (user && used && user !== used && dependency.resolved !== `src/resources/${used}/index.ts`)
      intoInternals.push(`${module.source} -> ${dependency.resolved}`);
    if (!dependency.resolved.startsWith('src/') || !isRuntime(dependency)) continue;
    const from = layerOf(module.source);
    const to = layerOf(dependency.resolved);
    if (from === to) continue;
    // A folder of core and core itself are one layer for the top-level view, and distinct inside core.
    const pairs = [[from, to]];
    if (from.startsWith('core') !== to.startsWith('core')) pairs[0] = [from.split('/')[0], to.split('/')[0]];
    for (const [a, b] of pairs) {
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Map());
      const out = edges.get(a);
      if (!out.has(b)) out.set(b, []);
      out.get(b).push(`${module.source} -> ${dependency.resolved}`);
    }
  }
}

// Strongly connected components (Tarjan): each with more than one layer is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function connect(v) {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!state.has(w)) {
      connect(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (state.get(w).onStack) state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
  }
  if (state.get(v).low === state.get(v).index) {
    const group = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      group.push(w);
    } while (w !== v);
    if (group.length > 1) cycles.push(group);
  }
}
for (const v of edges.keys()) if (!state.has(v)) connect(v);

if (intoInternals.length) {
  console.log(`a resource reaching into another's files (use that resource's index.ts):`);
  for (const line of intoInternals) console.log(`  ${line}`);
  process.exit(1);
}
if (!cycles.length) {
  // The folders of core by level: each imports only folders of lower levels.
  const level = new Map();
  const levelOf = (v) => {
    if (!level.has(v)) level.set(v, 1 + Math.max(-1, ...[...(edges.get(v)?.keys() ?? [])].map(levelOf)));
    return level.get(v);
  };
  const core = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])])].filter((v) =>
    v.startsWith('core/'),
  );
  const byLevel = [];
  for (const v of core) (byLevel[levelOf(v)] ??= []).push(v.slice(5));
  console.log(
    `layers: no runtime import cycle; core from the bottom: ${byLevel.map((l) => l.sort().join(', ')).join(' → ')}`,
  );
  process.exit(0);
}
for (const group of cycles) {
  console.log(`cycle between ${group.sort().join(', ')}:`);
  for (const a of group)
    for (const [b, examples] of edges.get(a) ?? [])
      if (group.includes(b)) console.log(`  ${a} -> ${b} (${examples.length}): ${examples.slice(0, 3).join('; ')}`);
}
process.exit(1);
