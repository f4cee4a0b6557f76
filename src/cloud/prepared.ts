import { encodeAddDiskBody, Responses, type WireFormat } from './codec';
import type { AddDiskParams, Backup, Disk } from './schemas';

// A change as it will go on the wire, prepared before it is sent: what an
// approval request shows and an audit record keeps is the very value the
// client sends (client.ts `send`), so what people approve is, by
// construction, what the cloud API receives. The credentials are not part of
// it: the transport adds them as a header.

/** What each change operation answers with (docs/cloud-api.md, Restore a backup, Add a disk). */
export interface ChangeAnswers {
  add_disk: Disk;
  restore_backup: Backup;
}

/** The operations that change something, as named in metrics and logs. */
export type ChangeOperation = keyof ChangeAnswers;

export interface PreparedRequest<O extends ChangeOperation = ChangeOperation> {
  readonly operation: O;
  readonly method: 'POST';
  /** Relative to VS_API_URL, with the format suffix: `/backups/9/restore.json`. */
  readonly path: string;
  /** The text sent, exactly, in the configured format; null when the request has no body. */
  readonly body: string | null;
}

/** How each operation is sent and read: the statuses that mean success and the shape of its answer. */
export const CHANGE_OPERATIONS = {
  // Spec 4.3 answers 201; 200 is what some deployments send for the same thing.
  add_disk: { expectedStatuses: [201, 200], answer: Responses.disk },
  // Spec 4.1 shows no status: any 2xx with the backup in the body is success.
  restore_backup: { expectedStatuses: [200, 201, 202], answer: Responses.backup },
} as const;

/** Ids go into the path; anything but a positive integer is a bug on our side, not an API call. */
export function pathId(id: number): string {
  if (!Number.isSafeInteger(id) || id <= 0) throw new RangeError(`expected a positive integer id, got ${String(id)}`);
  return String(id);
}

/** POST /virtual_machines/:id/disks (docs/cloud-api.md, Add a disk), its body in `format`. */
export function prepareAddDisk(format: WireFormat, vsId: number, params: AddDiskParams): PreparedRequest<'add_disk'> {
  return { operation: 'add_disk', method: 'POST', path: `/virtual_machines/${pathId(vsId)}/disks.${format}`, body: encodeAddDiskBody(format, params) };
}

/** POST /backups/:id/restore (docs/cloud-api.md, Restore a backup): no body. */
export function prepareRestoreBackup(format: WireFormat, backupId: number): PreparedRequest<'restore_backup'> {
  return { operation: 'restore_backup', method: 'POST', path: `/backups/${pathId(backupId)}/restore.${format}`, body: null };
}

/** A request as people read it, exactly as it goes on the wire: its line (method and path), then its body. */
export function requestText(request: { method: string; path: string; body: string | null }): string {
  return `${request.method} ${request.path}${request.body === null ? '' : `\n\n${request.body}`}`;
}

/** Whether a prepared request puts the same bytes on the wire as `b` (a request as recorded): the same method, path and body. */
export function samePreparedRequest(a: PreparedRequest, b: { method: string; path: string; body: string | null }): boolean {
  return a.method === b.method && a.path === b.path && a.body === b.body;
}

/** The preparing half of a client, for a sender of its own: tests and the benchmark send prepared requests to a fake, prepared as the client would. */
export function preparing(format: WireFormat) {
  return {
    prepareAddDisk: (vsId: number, params: AddDiskParams) => prepareAddDisk(format, vsId, params),
    prepareRestoreBackup: (backupId: number) => prepareRestoreBackup(format, backupId),
  };
}
