import { PROBLEM_CONTENT_TYPE } from '../schemas/problem.ts';
import { problemInstance } from '../server/error-handler.ts';
import { unknownQueryParameters } from '../server/query-parameters.ts';

/*
 * A problem's example is declared once per status (problem.ts), but what a problem says depends
 * on the operation: its `instance` is the operation's path, and a 400 for an unknown query
 * parameter names the parameters the operation does take. This fills both in per operation, so
 * that every example in the document is an answer that operation really gives.
 */

/** The misspelling the 400 examples refuse: how `?dryRun=true` is typed by mistake. */
const MISSPELT_PARAMETER = 'dry_run';

type Parameter = { in: string; name: string; example?: unknown };
type Media = { example?: Record<string, unknown> };
type Operation = { parameters?: Parameter[]; responses?: Record<string, { content?: Record<string, Media> }> };

/** The document's last step: each operation's problem examples made its own. */
export function operationExamples<D>(document: D): D {
  const paths = ((document as { paths?: object }).paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(item)) {
      const parameters = operation.parameters ?? [];
      const instance = problemInstance(concretePath(path, parameters));
      const takes = parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.[PROBLEM_CONTENT_TYPE];
        if (media?.example === undefined) continue;
        media.example = {
          ...media.example,
          instance,
          ...(status === '400' ? { detail: unknownQueryParameters([MISSPELT_PARAMETER], takes) } : {}),
        };
      }
    }
  }
  return document;
}

/** The path with each {parameter} replaced by its example, as a request names it. */
function concretePath(path: string, parameters: Parameter[]): string {
  return path.replace(/\{([^}]+)\}/g, (template, name: string) => {
    const example = parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.example;
    return typeof example === 'string' ? encodeURIComponent(example) : template;
  });
}
