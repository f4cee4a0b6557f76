// The public face of the cloud API client.
export { createCloudClient, type CloudClientConfig, type CloudClientDeps } from './client';
export type { CloudClient } from './client.types';
export { CloudError, isCloudError, type CloudErrorKind, type CloudErrorInit } from './errors';
export { DEFAULT_RETRY_POLICY, DEFAULT_MAX_BODY_BYTES, parseRetryAfter, type RetryPolicy } from './http';
export { decodeResponse, encodeAddDiskBody, addDiskWireFields, parseErrorBody, Responses, type WireFormat, type ErrorDetails } from './codec';
export {
  AddDiskParams,
  AutoscalingResource,
  AutoscalingSlot,
  Backup,
  Disk,
  FirewallRule,
  ScaleType,
} from './schemas';
export { TEMPLATES, Template, Virtualization, filterTemplates, findTemplate } from './templates';
