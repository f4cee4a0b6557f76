import { parseErrorBody } from './codec';
import type { CloudError, CloudErrorInit } from './errors';
import { parseRetryAfter } from './retry';
import type { CloudHttpResponse, CloudRequest, Fail } from './transport';

/** An HTTP status that is not the operation's answer → the CloudError of its kind, with what the body says. */
export function statusError(response: CloudHttpResponse, request: CloudRequest, fail: Fail): CloudError {
  const { status } = response;
  const { messages, fieldErrors } = parseErrorBody(response.text);
  const init: CloudErrorInit = { status, messages, fieldErrors, request: response.request };
  const said = messages.length > 0 ? `: ${messages.slice(0, 3).join('; ')}` : '';
  switch (status) {
    case 400:
    case 422:
      return fail('validation', `the cloud API rejected the parameters (HTTP ${status})${said}`, init);
    case 401:
      return fail('unauthorized', `the cloud API did not accept the credentials (HTTP 401)${said}`, init);
    case 403:
      return fail('forbidden', `the cloud API refused the request (HTTP 403)${said}`, init);
    case 404:
      return fail('not_found', `the cloud API has no such resource (HTTP 404)${said}`, init);
    case 429:
      return fail('rate_limited', `the cloud API is rate-limiting requests (HTTP 429)${said}`, {
        ...init,
        retryAfterSeconds: parseRetryAfter(response.retryAfter),
      });
    default:
      if (status >= 500) return fail('server', `the cloud API failed (HTTP ${status})${said}`, init);
      // 204 where a body is needed, 207 Multi-Status, redirects, other 4xx: not an answer we can use.
      return fail('server', `the cloud API answered HTTP ${status}, which ${request.method} ${request.path} does not expect${said}`, init);
  }
}
