// The permissions a rule can count: the service's own, from the client's list (held equal to the service's).
import { PERMISSIONS } from '../../client/index.ts';
import { OPERATIONS, type Operation, type PolicyRule } from '../approvals/types.ts';

const MAX_APPROVALS = 20;

interface PolicyRulesEditorProps {
  rules: readonly PolicyRule[];
  onChange(rules: PolicyRule[]): void;
  /** Read-only for an admin who may not change the policy. */
  disabled?: boolean;
}

/**
 * A policy's rules as rows: which operation, how many approvals, from admins holding which
 * permission. One rule per operation (the service refuses two), so a row offers only the
 * operations no other row has.
 */
export function PolicyRulesEditor({ rules, onChange, disabled }: PolicyRulesEditorProps) {
  const set = (index: number, change: Partial<PolicyRule>) =>
    onChange(rules.map((rule, i) => (i === index ? { ...rule, ...change } : rule)));
  const unused = OPERATIONS.filter((operation) => !rules.some((rule) => rule.operation === operation));
  return (
    <div class="rules-editor">
      {rules.length === 0 && <p class="muted">No rules: every operation runs at once.</p>}
      {rules.length > 0 && (
        <ul class="plain-list rule-rows" aria-label="Rules">
          {rules.map((rule, index) => (
            <li key={rule.operation} class="rule-row">
              <label class="field">
                <span>Operation</span>
                <select
                  value={rule.operation}
                  disabled={disabled}
                  onChange={(event) => set(index, { operation: (event.target as HTMLSelectElement).value as Operation })}
                >
                  {[rule.operation, ...unused].map((operation) => (
                    <option key={operation} value={operation}>
                      {operation}
                    </option>
                  ))}
                </select>
              </label>
              <label class="field field-narrow">
                <span>Approvals</span>
                <input
                  type="number"
                  min={1}
                  max={MAX_APPROVALS}
                  required
                  value={rule.approvals}
                  disabled={disabled}
                  onInput={(event) => set(index, { approvals: Number((event.target as HTMLInputElement).value) })}
                />
              </label>
              <label class="field">
                <span>Of admins with</span>
                <select
                  value={rule.permission}
                  disabled={disabled}
                  onChange={(event) => set(index, { permission: (event.target as HTMLSelectElement).value })}
                >
                  {PERMISSIONS.map((permission) => (
                    <option key={permission} value={permission}>
                      {permission}
                    </option>
                  ))}
                </select>
              </label>
              {!disabled && (
                <button
                  type="button"
                  class="button button-small button-danger rule-remove"
                  aria-label={`Remove the rule for ${rule.operation}`}
                  onClick={() => onChange(rules.filter((_, i) => i !== index))}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!disabled && unused.length > 0 && (
        <button
          type="button"
          class="button button-small"
          onClick={() =>
            onChange([...rules, { operation: unused[0] as Operation, approvals: 2, permission: defaultPermission(unused[0] as Operation) }])
          }
        >
          Add a rule
        </button>
      )}
    </div>
  );
}

/** The permission that usually guards an operation: who may restore approves a restore, and so on. */
function defaultPermission(operation: Operation): string {
  if (operation.endsWith('.restore')) return 'files:restore';
  if (operation === 'backup.delete') return 'backups:delete';
  if (operation === 'backup.lock') return 'backups:lock';
  if (operation === 'policy.change') return 'channels:manage';
  return 'admins:manage';
}
