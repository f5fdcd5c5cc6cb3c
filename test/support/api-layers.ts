/**
 * The folder-level import graph of services/api: which layer imports which. A layer is one
 * protocol folder (`protocols/csw`, …) or one other top folder (`common`, `commands`, `html`,
 * `middleware`, `openapi`); files at the top (`app.ts`, `main.ts`) are the layer `app`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { defined } from './defined.js';

/** Layer → the layers it imports (itself excluded). */
export type LayerGraph = Map<string, Set<string>>;

/** The layer a file of services/api belongs to (its path relative to services/api). */
export function layerOf(path: string): string {
  const parts = path.split('/');
  if (parts.length === 1) return 'app';
  if (parts[0] === 'protocols' && parts.length > 2) return `protocols/${parts[1]}`;
  return defined(parts[0], `the first folder of ${path}`);
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Reads every TypeScript file under `apiRoot` and builds its layer graph. */
export function readLayerGraph(apiRoot: string): LayerGraph {
  const graph: LayerGraph = new Map();
  for (const file of sourceFiles(apiRoot)) {
    const from = layerOf(relative(apiRoot, file));
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = relative(apiRoot, resolve(dirname(file), fileName));
      if (target.startsWith('..')) continue; // shared/ and other roots are not layers
      const to = layerOf(target);
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/**
 * The import cycles among the layers `within` selects: each as a path `a → b → … → a`, one
 * per strongly connected component (Tarjan), empty when the graph is acyclic there.
 */
export function findCycles(graph: LayerGraph, within: (layer: string) => boolean): string[] {
  const nodes = [...graph.keys()].filter(within).sort();
  const next = (node: string): string[] =>
    [...(graph.get(node) ?? [])].filter((to) => within(to) && graph.has(to)).sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const to of next(node)) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component);
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return components.map((component) => {
    // A path through the component from its first member back to it.
    const members = new Set(component);
    const start = defined([...component].sort()[0], 'the first member of a component');
    const path = [start];
    const seen = new Set(path);
    let at = start;
    for (;;) {
      const onward = next(at).filter((to) => members.has(to));
      const step = onward.find((to) => !seen.has(to)) ?? onward.find((to) => to === start);
      if (step === undefined || step === start) break;
      path.push(step);
      seen.add(step);
      at = step;
    }
    return [...path, start].join(' → ');
  });
}
