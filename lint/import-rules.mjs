// The layer rules of docs/design.md as eslint rules, so `npm run lint` fails on an upward import
// or an import cycle. A local plugin rather than eslint-plugin-import-x: both rules need only our
// own relative imports, resolved the way TypeScript resolves them here, and this costs one read of each
// file's imports (read by TypeScript's pre-processor) and no dependency.
//
//   gpuflow/layers    an import whose target lies in a top-level folder the importing folder may
//                     not use (options: { allowed: { folder: [folders it may import] } }); folders
//                     not named (test/, bench/) are free.
//   gpuflow/no-cycle  an import of a module that leads back to the importing one, however long
//                     the way. Type-only imports count: they tie two modules' designs together
//                     just as much (the fix is the same: move the shared part below both).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * Each layer and the folders it may import besides itself (docs/design.md, "Folders and layers").
 * Folders not named here (test/, bench/, lint/) are free.
 */
export const LAYERS = {
  bin: ['main', 'worker', 'native', 'common'],
  main: ['worker', 'native', 'common'],
  worker: ['native', 'common'],
  native: ['common'],
  renderer: ['common'],
  common: [],
};

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const CANDIDATES = ['', '.ts', '.tsx', '.mts', '.mjs', '.js', '/index.ts', '/index.tsx'];

/** The file a relative specifier names, as TypeScript finds it ('./x.js' may be './x.ts'); null if none. */
export function resolveImport(fromFile, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(fromFile), spec);
  const bases = /\.(m?js)$/.test(base) ? [base, base.replace(/\.(m?)js$/, '.$1ts')] : [base];
  for (const b of bases) {
    for (const ext of CANDIDATES) {
      const p = b + ext;
      if (existsSync(p) && statSync(p).isFile()) return p;
    }
  }
  return null;
}

/**
 * The specifiers a module imports: static and dynamic imports, `export ... from`, type-only too.
 * TypeScript's own pre-processor reads them (no full parse: it skips comments and strings).
 */
function importSpecifiers(text) {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/**
 * The import graph of the folders under `root`, and its strongly connected components (Tarjan):
 * a module in a component of two or more lies on a cycle. Built once per root and lint run; a file
 * whose text differs from what was read (an editor's unsaved buffer) rebuilds it.
 */
const graphs = new Map();
export function importGraph(root, folders) {
  const key = `${root}\0${folders.join(',')}`;
  const cached = graphs.get(key);
  if (cached) return cached;
  const edges = new Map();
  const texts = new Map();
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'build' || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (SOURCE.test(e.name) && !e.name.endsWith('.d.ts') && !e.name.endsWith('.d.mts')) {
        const text = readFileSync(p, 'utf8');
        texts.set(p, text);
        edges.set(
          p,
          importSpecifiers(text)
            .map((spec) => resolveImport(p, spec))
            .filter((t) => t !== null),
        );
      }
    }
  };
  for (const f of folders) walk(join(root, f));
  const component = new Map();
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  // Iterative Tarjan: the tree is deep enough that recursion is a risk on long chains.
  for (const start of edges.keys()) {
    if (idx.has(start)) continue;
    const work = [[start, 0]];
    idx.set(start, index);
    low.set(start, index);
    index++;
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [v, i] = frame;
      const out = (edges.get(v) ?? []).filter((w) => edges.has(w));
      if (i < out.length) {
        frame[1]++;
        const w = out[i];
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index);
          index++;
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === idx.get(v)) {
        const members = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          members.push(w);
        } while (w !== v);
        if (members.length > 1) for (const m of members) component.set(m, members);
      }
    }
  }
  const graph = { edges, component, texts };
  graphs.set(key, graph);
  return graph;
}

function topFolder(root, file) {
  const rel = relative(root, file);
  if (rel.startsWith('..')) return null;
  return rel.split(sep)[0];
}

/** Whether a module in top-level folder `from` may import one in `to` (folders not in `allowed` are free). */
export function mayImport(from, to, allowed) {
  return !(from in allowed) || !(to in allowed) || to === from || allowed[from].includes(to);
}

/** Every upward import in the tree under `root`: [importer, imported] paths relative to root. */
export function upwardImports(root, allowed) {
  const { edges } = importGraph(root, Object.keys(allowed));
  const out = [];
  for (const [file, targets] of edges) {
    for (const t of targets) {
      const from = topFolder(root, file);
      const to = topFolder(root, t);
      if (from && to && !mayImport(from, to, allowed)) out.push([relative(root, file), relative(root, t)]);
    }
  }
  return out;
}

/** The import cycles in the tree under `root`: each as its modules' paths relative to root. */
export function importCycles(root, folders) {
  const { component } = importGraph(root, folders);
  return [...new Set(component.values())].map((members) => members.map((m) => relative(root, m)).sort());
}

const layers = {
  meta: {
    type: 'problem',
    docs: { description: 'imports go down the layers of docs/design.md' },
    schema: [
      {
        type: 'object',
        properties: { allowed: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
        required: ['allowed'],
        additionalProperties: false,
      },
    ],
    messages: {
      upward:
        '{{from}}/ may not import {{to}}/ (\'{{spec}}\'): {{from}}/ may import only {{allowed}} (docs/design.md, "Folders and layers"). Move what both need down a layer.',
    },
  },
  create(context) {
    const { allowed } = context.options[0];
    const root = context.cwd;
    const from = topFolder(root, context.filename);
    if (!from || !(from in allowed)) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = topFolder(root, resolve(dirname(context.filename), spec));
      if (!to || mayImport(from, to, allowed)) return;
      context.report({ node, messageId: 'upward', data: { from, to, spec, allowed: [from, ...allowed[from]].map((f) => `${f}/`).join(', ') } });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no module imports one that leads back to it' },
    schema: [{ type: 'object', properties: { folders: { type: 'array', items: { type: 'string' } } }, required: ['folders'], additionalProperties: false }],
    messages: { cycle: "'{{spec}}' leads back to this module (cycle: {{cycle}}). Move what both need into a module of its own." },
  },
  create(context) {
    const root = context.cwd;
    const { folders } = context.options[0];
    const file = context.filename;
    const top = topFolder(root, file);
    if (!top || !folders.includes(top)) return {};
    const key = `${root}\0${folders.join(',')}`;
    let graph = importGraph(root, folders);
    if (graph.texts.has(file) && graph.texts.get(file) !== context.sourceCode.text) {
      graphs.delete(key);
      graph = importGraph(root, folders);
    }
    const members = graph.component.get(file);
    if (!members) return {};
    const inCycle = new Set(members);
    const check = (node, spec) => {
      if (typeof spec !== 'string') return;
      const target = resolveImport(file, spec);
      if (!target || !inCycle.has(target)) return;
      context.report({
        node,
        messageId: 'cycle',
        data: {
          spec,
          cycle: cyclePath(graph, target, file, inCycle)
            .map((p) => relative(root, p))
            .join(' -> '),
        },
      });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

/** The shortest way from `from` back to `to` inside one component (breadth first), `to` first. */
function cyclePath(graph, from, to, members) {
  const prev = new Map([[from, null]]);
  const queue = [from];
  while (queue.length) {
    const v = queue.shift();
    if (v === to) break;
    for (const w of graph.edges.get(v) ?? []) {
      if (members.has(w) && !prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  const path = [];
  for (let v = to; v !== null && v !== undefined; v = prev.get(v)) path.unshift(v);
  return [to, ...path];
}

export default { meta: { name: 'gpuflow-imports' }, rules: { layers, 'no-cycle': noCycle } };
