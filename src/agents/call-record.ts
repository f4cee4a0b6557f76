// What one MCP call came to, for its span (docs/production.md, Traces): the tool's handler says it, the endpoint
// puts it on the call's root span. Outcomes, never what was asked or answered.

/** done: answered; requested: a person was asked; refused: not allowed, invalid or unresolved; failed: the cloud or we failed. */
export type CallOutcome = 'done' | 'requested' | 'refused' | 'failed' | 'duplicate';

export interface CallRecord {
  outcome?: CallOutcome;
}

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/**
 * A tool's handler that records its outcome in `call`: a request tool's from its status (requested, refused,
 * duplicate), any other's from whether it answered (an error answer is a refusal unless the handler said `failed`).
 */
export function toolCall<A extends unknown[], R extends ToolAnswer>(
  call: CallRecord,
  kind: 'read' | 'request',
  run: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      const answer = await run(...args);
      const status = answer.structuredContent?.status;
      call.outcome ??= kind === 'request' && (status === 'requested' || status === 'duplicate') ? status : answer.isError === true ? 'refused' : 'done';
      return answer;
    } catch (error) {
      call.outcome = 'failed';
      throw error;
    }
  };
}
