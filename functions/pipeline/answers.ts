import type * as z from 'zod/mini';
import type { RouteDefinition } from './route.ts';

/**
 * What the request pipeline can answer, declared beside the code that answers it: each middleware
 * exports a {@link PipelineStep}, and the OpenAPI generator merges the steps' answers into every
 * operation from its route row (see {@link documentedResponses}), so no handler lists them by hand.
 */

/** A response header as OpenAPI documents it. */
export interface HeaderSpec {
  description: string;
  schema: { type: 'string' } | { type: 'integer'; minimum?: number };
  /** True when every answer the header is declared on carries it. */
  required: boolean;
}

/** A response the operation documents (OpenAPI) and may return. */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodMiniType;
  headers?: Record<string, HeaderSpec>;
}

/** What the generator knows of an operation: its route row and whether it takes input. */
export interface OperationShape {
  route: RouteDefinition;
  hasParams: boolean;
  hasQuery: boolean;
  hasBody: boolean;
}

/** One step of the chain, as documentation: the answers it can produce and the headers it adds. */
export interface PipelineStep {
  name: string;
  /** Answers this step itself produces for the operation (it may produce none). */
  answers: (operation: OperationShape) => Partial<Record<number, ResponseSpec>>;
  /**
   * Headers this step puts on every answer: required on answers produced at or after this step,
   * optional (documented, not guaranteed) on answers produced before it.
   */
  everyAnswerHeaders?: (
    operation: OperationShape,
  ) => Partial<Record<string, Omit<HeaderSpec, 'required'> & { onlySometimes?: boolean }>>;
}

interface Producer {
  order: number;
  response: ResponseSpec;
}

/**
 * The documented responses of one operation: the pipeline's answers (steps in the order they run),
 * then the handler's own. A status several steps produce (422 from idempotency and validation) gets
 * every description, and a body schema each of them may send; a header is required only when every
 * producer of that status guarantees it.
 */
export function documentedResponses(
  steps: readonly PipelineStep[],
  operation: OperationShape,
  handlerResponses: Record<number, ResponseSpec>,
): Record<number, { description: string; schemas: z.ZodMiniType[]; headers: Record<string, HeaderSpec> }> {
  const handlerOrder = steps.length;
  const producers = new Map<number, Producer[]>();
  const add = (status: number, producer: Producer) => {
    producers.set(status, [...(producers.get(status) ?? []), producer]);
  };
  steps.forEach((step, order) => {
    for (const [status, response] of Object.entries(step.answers(operation))) {
      if (response) add(Number(status), { order, response });
    }
  });
  for (const [status, response] of Object.entries(handlerResponses)) {
    add(Number(status), { order: handlerOrder, response });
  }

  const result: ReturnType<typeof documentedResponses> = {};
  for (const status of [...producers.keys()].sort((a, b) => a - b)) {
    const list = producers.get(status) ?? [];
    const descriptions = [...new Set(list.map((p) => p.response.description))];
    const schemas = [
      ...new Set(list.map((p) => p.response.schema).filter((s): s is z.ZodMiniType => s !== undefined)),
    ];
    const headers: Record<string, HeaderSpec> = {};
    // Headers of the answers themselves: required when every producer of the status requires them.
    const named = new Set(list.flatMap((p) => Object.keys(p.response.headers ?? {})));
    for (const name of named) {
      const specs = list.map((p) => p.response.headers?.[name]);
      const first = specs.find((s) => s !== undefined) as HeaderSpec;
      headers[name] = { ...first, required: specs.every((s) => s?.required === true) };
    }
    // Headers a step adds to every answer: guaranteed when every producer runs at or after the step.
    const earliest = Math.min(...list.map((p) => p.order));
    const latest = Math.max(...list.map((p) => p.order));
    steps.forEach((step, order) => {
      for (const [name, declared] of Object.entries(step.everyAnswerHeaders?.(operation) ?? {})) {
        if (!declared) continue;
        const { onlySometimes, ...spec } = declared;
        // A header only some answers carry is left off a status no producer at or after the step answers.
        if (onlySometimes && latest < order) continue;
        headers[name] ??= { ...spec, required: !onlySometimes && earliest >= order };
      }
    });
    result[status] = { description: descriptions.join(' Or: '), schemas, headers };
  }
  return result;
}
