import { type Document, LineCounter, parseDocument } from 'yaml';
import type { Segment } from './paths.ts';
import type { PlanFileProblem } from './types.ts';

// Plan file text → its JSON value, with a locator of each path's line for YAML.

export type Parsed =
  | { document: unknown; locate?: (path: Segment[]) => number | undefined }
  | { problems: PlanFileProblem[] };

export function parseJson(text: string): Parsed {
  try {
    return { document: JSON.parse(text) };
  } catch (error) {
    return { problems: [{ path: '', message: `is not valid JSON: ${(error as Error).message}` }] };
  }
}

export function parseYaml(text: string): Parsed {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, version: '1.2' });
  const issues = [...document.errors, ...document.warnings];
  if (issues.length > 0) {
    return {
      problems: issues.map((issue) => {
        const line = issue.linePos?.[0].line ?? lineCounter.linePos(issue.pos[0]).line;
        return { path: '', line, message: `is not valid YAML: ${issue.message}` };
      }),
    };
  }
  try {
    return { document: document.toJS({ maxAliasCount: 100 }), locate: yamlLocator(document, lineCounter) };
  } catch (error) {
    return { problems: [{ path: '', message: `is not valid YAML: ${(error as Error).message}` }] };
  }
}

/** The line of the deepest node of `path` present in the YAML document (a missing member: its parent's line). */
function yamlLocator(document: Document, lineCounter: LineCounter) {
  return (path: Segment[]): number | undefined => {
    for (let length = path.length; length >= 0; length--) {
      const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      if (range) return lineCounter.linePos(range[0]).line;
    }
    return undefined;
  };
}
