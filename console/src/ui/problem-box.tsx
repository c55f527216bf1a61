import type { JSX } from 'preact';
import type { Problem } from '../api/client.js';

/** A problem as the API (or the console) stated it: title, detail, code and request id. */
export function ProblemBox({ problem, idPrefix }: { problem: Problem | null; idPrefix: string }): JSX.Element | null {
  if (problem === null) return null;
  const code = problem.failureCode ? `${problem.code ?? ''} / ${problem.failureCode}` : problem.code;
  return (
    <div id={idPrefix} data-testid={idPrefix} class="problem" role="alert">
      <p>
        <strong id={`${idPrefix}-title`}>{problem.title}</strong>
      </p>
      <p id={`${idPrefix}-detail`} data-testid={`${idPrefix}-detail`}>
        {problem.detail}
      </p>
      {code ? (
        <p>
          Code: <code id={`${idPrefix}-code`} data-testid={`${idPrefix}-code`}>{code}</code>
        </p>
      ) : null}
      {problem.requestId ? (
        <p>
          Request id: <code id={`${idPrefix}-request`}>{problem.requestId}</code>
        </p>
      ) : null}
    </div>
  );
}
