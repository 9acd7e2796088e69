/**
 * How CloudFormation orders a stack's resources, read from a template as its User Guide documents it:
 * a resource is created only after every resource it depends on is complete — those named in its
 * `DependsOn` attribute and those its properties (or other attributes) reference with `Ref`, `Fn::GetAtt` or
 * `Fn::Sub` — and resources with no dependency between them are created in parallel. When a creation fails,
 * the rollback deletes the resources the operation created, unless their `DeletionPolicy` is `Retain`
 * (`RetainExceptOnCreate` deletes a resource its own operation created; `Snapshot` deletes it after a snapshot).
 */

type Json = Record<string, unknown>;

/** A template's resource. */
export interface TemplateResource {
  Type: string;
  Properties?: Json;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  [attribute: string]: unknown;
}

/** The logical ids `value` references (`Ref`, `Fn::GetAtt`, `${Id}` and `${Id.Attribute}` of `Fn::Sub`). */
const referencesIn = (value: unknown, ids: ReadonlySet<string>, found: Set<string>): Set<string> => {
  if (Array.isArray(value)) {
    for (const item of value) referencesIn(item, ids, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value as Json)) {
      if (key === 'Ref' && typeof child === 'string' && ids.has(child)) found.add(child);
      else if (key === 'Fn::GetAtt') {
        const target = Array.isArray(child) ? String(child[0]) : String(child).split('.')[0];
        if (target !== undefined && ids.has(target)) found.add(target);
      } else if (key === 'Fn::Sub') {
        const text = Array.isArray(child) ? String(child[0]) : String(child);
        for (const [, reference] of text.matchAll(/\$\{([^}!][^}]*)\}/g)) {
          const target = (reference as string).split('.')[0] as string;
          if (ids.has(target)) found.add(target);
        }
        if (Array.isArray(child)) referencesIn(child[1], ids, found);
      } else referencesIn(child, ids, found);
    }
  }
  return found;
};

/** Each resource's direct dependencies: `DependsOn` and the resources it references. */
export const dependenciesOf = (resources: Record<string, TemplateResource>): Map<string, Set<string>> => {
  const ids = new Set(Object.keys(resources));
  const graph = new Map<string, Set<string>>();
  for (const [id, resource] of Object.entries(resources)) {
    const { DependsOn: dependsOn, ...rest } = resource;
    const found = referencesIn(rest, ids, new Set([dependsOn ?? []].flat()));
    found.delete(id);
    graph.set(id, found);
  }
  return graph;
};

/** Every resource CloudFormation must complete before it starts `id`. */
export const completedBefore = (graph: Map<string, Set<string>>, id: string): Set<string> => {
  const seen = new Set<string>();
  const visit = (current: string): void => {
    for (const next of graph.get(current) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      visit(next);
    }
  };
  visit(id);
  return seen;
};

/** The resources a rolled-back creation leaves behind: those whose deletion policy keeps them. */
export const leftByRollback = (resources: Record<string, TemplateResource>): string[] =>
  Object.entries(resources)
    .filter(([, resource]) => resource.DeletionPolicy === 'Retain')
    .map(([id]) => id);
