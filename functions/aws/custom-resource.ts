/**
 * The answer of a Lambda-backed CloudFormation custom resource. CloudFormation invokes the function
 * asynchronously and waits for a JSON document `PUT` to the request's pre-signed `ResponseURL`; the
 * function's return value is ignored. {@link customResource} wraps the work so that every invocation
 * answers exactly once, `SUCCESS` or `FAILED` with a reason, and never leaves a deployment waiting.
 *
 * The answer's fields and its empty `Content-Type` (the pre-signed URL is signed without one) are those of
 * AWS's custom resource response objects (CloudFormation User Guide, "Custom resource response objects").
 */
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';

/** What the work reports: the resource's physical id (stable across updates) and optional outputs. */
export interface CustomResourceResult {
  physicalResourceId: string;
  data?: Record<string, string>;
}

/** The work of one request; `Delete` requests reach it too. */
export type CustomResourceWork = (event: CloudFormationCustomResourceEvent) => Promise<CustomResourceResult>;

/** Sends the answer: the function's job is done only once CloudFormation has it. */
const send = async (event: CloudFormationCustomResourceEvent, answer: Record<string, unknown>): Promise<void> => {
  const body = JSON.stringify({
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    ...answer,
  });
  const response = await fetch(event.ResponseURL, {
    method: 'PUT',
    headers: { 'content-type': '', 'content-length': String(Buffer.byteLength(body)) },
    body,
  });
  if (!response.ok) throw new Error(`CloudFormation did not take the answer: HTTP ${response.status}`);
};

/**
 * A custom resource handler: runs `work`, then answers `SUCCESS` with its result, or `FAILED` with the
 * error's name and message (CloudFormation shows the reason in the stack's events). On failure the
 * physical id is the one CloudFormation sent, or the log stream's name for a create that never produced
 * one, as AWS's own response module does.
 */
export const customResource =
  (work: CustomResourceWork, onFailure: (error: unknown) => void = () => undefined) =>
  async (event: CloudFormationCustomResourceEvent, context: Pick<Context, 'logStreamName'>): Promise<void> => {
    let answer: Record<string, unknown>;
    try {
      const result = await work(event);
      answer = { Status: 'SUCCESS', PhysicalResourceId: result.physicalResourceId, Data: result.data ?? {} };
    } catch (error) {
      onFailure(error);
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
      answer = {
        Status: 'FAILED',
        Reason: `${reason} (log stream ${context.logStreamName})`,
        PhysicalResourceId: 'PhysicalResourceId' in event ? event.PhysicalResourceId : context.logStreamName,
      };
    }
    await send(event, answer);
  };
