/**
 * Policies and proposals as the typed client gives them (docs/approvals.md), under the names the
 * console's views use.
 */
export {
  HELD_OPERATIONS as OPERATIONS,
  type HeldOperation as Operation,
  type IntentTypedData as TypedData,
  type Policy,
  type PolicyRule,
  type Proposal,
  type ProposalStatus,
} from '../../client/index.ts';
