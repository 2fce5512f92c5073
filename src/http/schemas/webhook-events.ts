import { EVENT_TYPES } from '../../events/event-filter.ts';

/**
 * The OpenAPI document's `webhooks` section (OpenAPI 3.1): what a webhook receives, one operation
 * for every event (docs/events.md, "The event"). The type is the audit action; `data` is the
 * audit entry as GET /api/audit/export shows it.
 */
export function webhooksSection(): Record<string, unknown> {
  const header = (description: string, example: string) => ({ description, required: true, schema: { type: 'string' }, example });
  return {
    'audit-event': {
      post: {
        operationId: 'receiveAuditEvent',
        summary: "One event of the tenant's audit chain, as POST /api/webhooks delivers it (at least once, in order per channel)",
        description:
          'Signed as the Standard Webhooks specification says: verify it with the typed client (verifyWebhook) or any of its ' +
          'libraries before trusting it, and deduplicate by its id (the entry hash). Answer 2xx to acknowledge; anything else, or ' +
          'no answer within EVENTS_TIMEOUT, is retried with backoff for EVENTS_RETRY_FOR, then dead-lettered.',
        tags: ['events'],
        security: [],
        parameters: [
          {
            in: 'header',
            name: 'webhook-id',
            ...header("The event's id: its audit entry's hash", '5f0c2b7e9a1d4c3b8e6f0a2d4c6b8e0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b'),
          },
          { in: 'header', name: 'webhook-timestamp', ...header('Seconds since the epoch when it was signed', '1796587983') },
          {
            in: 'header',
            name: 'webhook-signature',
            ...header(
              'v1,<base64 HMAC-SHA256 of id.timestamp.body>, space-separated (two while a rotated secret is in its grace period)',
              'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
            ),
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['id', 'type', 'tenantId', 'time', 'data'],
                properties: {
                  id: { type: 'string', description: "The audit entry's hash (64 hex)" },
                  type: { type: 'string', enum: [...EVENT_TYPES], description: 'The audit action' },
                  tenantId: { type: 'string' },
                  channelId: { type: 'string', description: "Absent for the tenant's own events (admins, invitations, policies)" },
                  time: { type: 'string', format: 'date-time' },
                  data: {
                    type: 'object',
                    description: 'The audit entry exactly as GET /api/audit/export shows it',
                    additionalProperties: true,
                  },
                },
              },
              example: {
                id: '5f0c2b7e9a1d4c3b8e6f0a2d4c6b8e0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b',
                type: 'restore',
                tenantId: 't_0f3k8m2q5x7c9v1b4n6p8r0t2w',
                channelId: 'chn_2b8k4m6q0x2c4v6b8n0p2r4t6w',
                time: '2026-12-06T12:00:00.000Z',
                data: { seq: 42, action: 'restore', folder: 'docs', filename: 'a.txt', result: 'ok' },
              },
            },
          },
        },
        responses: { '204': { description: 'Received (any 2xx): the event is not sent again' } },
      },
    },
  };
}
