import type { ApprovalRequest, AuditEntry } from '../../../src/store';

// What the contract's tests write: an audit entry and an approval request, each overridable.

export const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  at: '2024-05-01T10:00:00.000Z',
  userId: 'UOPER',
  channelId: 'CINCIDENT',
  action: 'disk_add',
  target: 'vs:42',
  params: { disk_type: 'SSD', disk_size: 20 },
  outcome: 'scheduled',
  apiStatus: 201,
  durationMs: 12,
  detail: null,
  ...overrides,
});

export const approvalRequest = (overrides: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: 'A1',
  action: 'backup_restore',
  target: 'backup:9',
  params: { backup_id: 9, reason: 'disk corrupted' },
  channelId: 'CINCIDENT',
  requestedBy: 'UOPER',
  requestedAt: '2024-05-01T10:00:00.000Z',
  expiresAtMs: 10_000,
  reason: 'disk corrupted',
  apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null },
  ...overrides,
});
