import { useState } from 'preact/hooks';
import { HeldForApproval } from '../../client/index.ts';
import type { PolicyRule } from '../approvals/types.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';
import { PolicyRulesEditor } from './policy-rules-editor.tsx';

interface PolicyFormProps {
  ctx: ViewContext;
  /** The rules as read. */
  rules: readonly PolicyRule[];
  /** Whether the signed-in admin may change them; otherwise they are shown only. */
  editable: boolean;
  /** Sends the rules (a PUT); answers once the policy is saved, throws HeldForApproval when the change itself needs approval. */
  save(rules: PolicyRule[]): Promise<unknown>;
  /** The policy was saved: read it again. */
  onSaved(): void;
  /** Names the form for assistive technology: "Tenant policy", "Policy of main". */
  label: string;
}

/**
 * Editing a policy's rules and saving them: a change that the policy itself holds (policy.change)
 * asks for approval instead, and a rule nobody could satisfy is refused (POLICY_UNSATISFIABLE).
 */
export function PolicyForm({ ctx, rules: saved, editable, save, onSaved, label }: PolicyFormProps) {
  const [rules, setRules] = useState<PolicyRule[]>([...saved]);
  const action = useAction((error) => ctx.session.noticeError(error));
  const unchanged = JSON.stringify(rules) === JSON.stringify(saved);
  /** Said under the rules after a save, until the next edit: in a dialog, the page's status line is hidden. */
  const [savedNow, setSavedNow] = useState(false);
  const edit = (next: PolicyRule[]) => {
    setSavedNow(false);
    setRules(next);
  };
  /** The rules last sent: a refusal speaks of those, and no longer applies once they are edited. */
  const [sent, setSent] = useState<string>();
  const submit = (event: Event) => {
    event.preventDefault();
    setSent(JSON.stringify(rules));
    void action.run(async () => {
      await save(rules);
      setSavedNow(true);
      ctx.announce(`${label} saved.`);
      onSaved();
    });
  };
  const held = action.error instanceof HeldForApproval ? action.error.proposal : undefined;
  // The held change's dialog, once closed, leaves its notice in the form (with the link to the proposal).
  const [dismissed, setDismissed] = useState<unknown>();
  return (
    <form aria-label={label} onSubmit={submit}>
      <PolicyRulesEditor rules={rules} onChange={edit} disabled={!editable} />
      {editable && (
        <div class="form-actions">
          <button type="submit" class="button button-primary" disabled={action.busy || unchanged}>
            {action.busy ? 'Saving…' : 'Save the policy'}
          </button>
          {!unchanged && (
            <button type="button" class="button" disabled={action.busy} onClick={() => edit([...saved])}>
              Undo changes
            </button>
          )}
          {savedNow && unchanged && (
            <span class="muted" role="status">
              Saved.
            </span>
          )}
        </div>
      )}
      {sent === JSON.stringify(rules) && <ProblemNotice error={action.error} title={held ? undefined : 'Policy not saved'} />}
      {held && dismissed !== action.error && <NeedsApprovalDialog ctx={ctx} proposal={held} onClose={() => setDismissed(action.error)} />}
    </form>
  );
}
