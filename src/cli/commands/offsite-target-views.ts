import type { OffsiteTestResult, TenantOffsite } from '../../client/index.ts';
import { type TerminalText, terminalLines, terminalText } from '../terminal-text.ts';

/*
 * What the CLI prints of a tenant's own off-site target, in either mode: over HTTP the API's
 * answer, locally the same view made from the store (tenant-offsite-views.ts). --json prints it as
 * it is; neither holds the bucket key's secret, which no view has.
 */

function storeText(target: TenantOffsite): string {
  const where = target.endpoint === null ? `AWS S3, region ${target.region}` : `${target.endpoint}, region ${target.region}`;
  return target.forcePathStyle ? `${where}, path-style` : where;
}

function shippedText(status: TenantOffsite['status']): string {
  if (status.generation === null) return 'nothing yet';
  const segment = status.segment === null ? 'its snapshot not shipped yet' : `segment ${status.segment}`;
  return `generation ${status.generation}, ${segment}, last at ${status.lastShipped ?? 'never'}; ${status.bytesShipped} bytes in ${status.objectsShipped} objects`;
}

/** `offsite target show`, and what set prints: everything but the secret, which nobody can read again. */
export function offsiteTargetDetails(target: TenantOffsite): TerminalText {
  const { status } = target;
  const lines = [
    terminalText`Off-site target of tenant ${target.tenantId}: ${status.state}`,
    terminalText`  Bucket: ${target.url}`,
    terminalText`  Store: ${storeText(target)}`,
    terminalText`  Access key id: ${target.accessKeyId}`,
    terminalText`  Recipients: ${target.recipients.join(', ')}`,
    terminalText`  Set by ${target.setBy} at ${target.updatedAt} (revision ${String(target.revision)})`,
    terminalText`  Shipped: ${shippedText(status)}`,
    terminalText`  Pending: ${String(status.changesPending)} changes, lag ${status.lagSeconds.toFixed(1)} s`,
    terminalText`  Last error: ${status.lastError === null ? 'none' : `${status.lastError.at} ${status.lastError.message}`}`,
    terminalText`  Last check: ${status.lastCheck === null ? 'never' : `${status.lastCheck.at} ${status.lastCheck.result}`}`,
  ];
  if (status.head !== null) lines.push(terminalText`  Head to publish: ${JSON.stringify(status.head)}`);
  return terminalLines(lines);
}

/** A test's finding: a target that failed it is the answer, not the command's failure (exit 0 either way, as webhook test). */
export function offsiteTestText(result: OffsiteTestResult): TerminalText {
  return result.ok
    ? terminalText`Reached the tenant's off-site target at ${result.checkedAt}: ${result.result}`
    : terminalText`The tenant's off-site target failed its test at ${result.checkedAt}: ${result.result}`;
}
