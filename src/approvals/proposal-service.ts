import { createHash, randomBytes } from 'node:crypto';
import { isOwner, type TenantView } from '../administration/admin-rules.ts';
import type { AdministrationAudit } from '../administration/administration-audit.ts';
import { tenantView } from '../administration/tenant-views.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { RunLease } from '../model/actors.ts';
import type { Admin, AdminRecords } from '../model/admins.ts';
import type { ApprovalRecords, HeldOperation, Proposal, ProposalIntents, ProposalStatus } from '../model/approvals.ts';
import type { AuditEvent } from '../model/audit.ts';
import { newProposalId } from '../model/ids.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import { canonicalPlan } from './canonical-plan.ts';
import type { IntentSignatures } from './intent-signatures.ts';
import { type IntentTypedData, intentTypedData } from './intent-typed-data.ts';
import { eligibleAdmins, ruleFor } from './policy-rules.ts';
import { type ActsOn, sinceRunBegan } from './run-history.ts';

/** A request for a dangerous operation, described so that a proposal can show it, sign it and run it later. */
export interface HeldRequest {
  operation: HeldOperation;
  tenantId: string;
  channelId: string | null;
  proposerId: string;
  /** What the operation will do, as the data its runner runs it from. */
  plan: Record<string, unknown>;
  /** What the plan acts on, as it stands: a different one when it runs voids the intents. */
  planEtag: string;
  /** The plan in words, shown by the console and the wallet. */
  summary: string;
  /** The typed data's fields the operation has (docs/approvals.md): the others are empty. */
  intent: { scope?: string; source?: string; delete?: boolean; target?: string };
  /** Done in the transaction that records the proposal (a wallet's proof used up): both, or neither. */
  withProposal?: ((tx: MetadataStore) => Promise<void>) | undefined;
}

/** How a held operation runs once approved: each operation's module registers one (approvals/held-*.ts). */
export interface OperationRunner {
  /** The plan's ETag as things stand now. */
  currentEtag(proposal: Proposal): Promise<string>;
  /**
   * Runs it as its proposer, the plan's ETag as a precondition, each step carrying `run` (whose
   * lease its transaction renews); answers what the operation answered.
   */
  run(proposal: Proposal, intents: ProposalIntents, run: RunLease): Promise<Record<string, unknown>>;
  /** What it acts on; undefined: nothing that exists before it runs (a creation). */
  actsOn(proposal: Proposal): ActsOn | undefined;
  /**
   * Completes a run taken over after its process died, given the entries its earlier attempts
   * committed (`own`, oldest first): what is left, run as `run` does (without the plan's ETag: the
   * plan's target may have changed by its own steps, and nobody else's, which was checked).
   */
  resume(proposal: Proposal, intents: ProposalIntents, run: RunLease, own: readonly AuditEvent[]): Promise<Record<string, unknown>>;
}

/** How long a run's lease lasts from its last step; a run silent for longer is taken over (PROPOSAL_RUN_LEASE_SECONDS). */
export interface RunSettings {
  leaseMs: number;
  /** Takeovers of one run before it is marked failed: a run that fails every time must not stay running. */
  maxAttempts: number;
}

export interface ProposalSettings {
  /** The service's public URL, which every intent names. */
  service: string;
  /** The chain of the typed data's domain: the first of AUTH_CHAIN_IDS, else 1. */
  chainId: number;
  /** PROPOSAL_SECONDS: how long a proposal waits for its approvals. */
  proposalSeconds: number;
}

export type ProposalStore = ApprovalRecords &
  Pick<AdminRecords, 'getAdmin' | 'listAdmins' | 'findAdminByWallet'> &
  Pick<MetadataStore, 'atomically'> & { files: Pick<MetadataStore['files'], 'auditHead' | 'chainedAudit'> };

type Step = 'create' | 'approve' | 'withdraw' | 'close' | 'execute';

/**
 * Proposals: a request a policy holds becomes one (hold), admins add signed intents (approve), and
 * the one approval that brings the count to the rule's runs it, exactly once: a proposal changes
 * state only by moveProposal, which of racing callers on any instance lets one win.
 */
export class ProposalService {
  private readonly runners = new Map<HeldOperation, OperationRunner>();

  constructor(
    private readonly store: ProposalStore,
    private readonly signatures: IntentSignatures,
    private readonly settings: ProposalSettings,
    private readonly audit: AdministrationAudit,
    private readonly runs: RunSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Registered by each held operation's module, once, when the services are built. */
  register(operation: HeldOperation, runner: OperationRunner): void {
    this.runners.set(operation, runner);
  }

  /** Whether a policy holds `operation` (on `channelId`) now: a request for it then becomes a proposal. */
  async holds(operation: HeldOperation, tenantId: string, channelId: string | null): Promise<boolean> {
    return (await this.ruleOf(operation, tenantId, channelId)) !== undefined;
  }

  private async ruleOf(operation: HeldOperation, tenantId: string, channelId: string | null) {
    const tenant = await this.store.getPolicy(tenantId, null);
    const channel = channelId === null ? undefined : await this.store.getPolicy(tenantId, channelId);
    return ruleFor(operation, tenant, channel);
  }

  /**
   * The proposal the request becomes when a policy holds its operation; undefined when none does
   * (the caller then runs it at once).
   */
  async hold(request: HeldRequest): Promise<Proposal | undefined> {
    const rule = await this.ruleOf(request.operation, request.tenantId, request.channelId);
    if (rule === undefined) return undefined;
    const admins = await this.store.listAdmins(request.tenantId);
    const eligible = eligibleAdmins(admins, rule.permission, request.channelId).map((a) => a.id);
    // A tenant's rule is checked against the whole tenant when it is set; on one channel fewer may hold it.
    if (eligible.length < rule.approvals) {
      throw new AppError(
        'POLICY_UNSATISFIABLE',
        `${request.operation} needs ${rule.approvals} approvals from admins holding ${rule.permission}${request.channelId === null ? '' : ' and this channel'}, ` +
          `and only ${eligible.length} could give one: nothing was proposed; link more admins to the channel or change the policy`,
        { operation: request.operation, approvals: rule.approvals, eligible: eligible.length },
      );
    }
    const createdAt = this.now();
    const expiresAt = createdAt + this.settings.proposalSeconds * 1000;
    const id = newProposalId();
    const typedData = intentTypedData(this.settings.chainId, {
      service: this.settings.service,
      proposal: id,
      operation: request.operation,
      tenant: request.tenantId,
      channel: request.channelId ?? '',
      scope: request.intent.scope ?? '',
      source: request.intent.source ?? '',
      delete: request.intent.delete ?? false,
      target: request.intent.target ?? '',
      details: `${request.summary}\n${canonicalPlan(request.plan)}`,
      planEtag: request.planEtag,
      admin: request.proposerId,
      nonce: `0x${randomBytes(32).toString('hex')}`,
      deadline: Math.floor(expiresAt / 1000),
    });
    return this.store.atomically(async (tx) => {
      await request.withProposal?.(tx);
      const proposal = await tx.createProposal({
        id,
        tenantId: request.tenantId,
        channelId: request.channelId,
        operation: request.operation,
        proposedBy: request.proposerId,
        createdAt,
        expiresAt,
        required: rule.approvals,
        permission: rule.permission,
        plan: request.plan,
        planEtag: request.planEtag,
        summary: request.summary,
        typedData: typedData as unknown as Record<string, unknown>,
        eligibleAdminIds: eligible,
      });
      await this.record(tx, proposal, 'create', request.proposerId);
      return proposal;
    });
  }

  async list(actorId: string, page: PageRequest, status?: ProposalStatus): Promise<Page<Proposal>> {
    const view = await tenantView(this.store, actorId);
    const found = await this.store.listProposals(view.actor.tenantId, page, {
      status,
      channelIds: isOwner(view.actor) ? undefined : view.actor.channelIds,
    });
    return { items: await Promise.all(found.items.map((p) => this.expireIfDue(p))), next: found.next };
  }

  async get(actorId: string, id: string): Promise<Proposal> {
    const view = await tenantView(this.store, actorId);
    return this.expireIfDue(await this.visible(view, id));
  }

  /**
   * Adds `wallet`'s intent (its signature of the proposal's typed data) for whichever admin holds
   * that wallet, then runs the proposal if that brings it to its count. `actorId` is who posts it,
   * who may relay another admin's intent: the intent alone says who approves.
   */
  async approve(actorId: string, id: string, wallet: string, signature: string): Promise<Proposal> {
    const view = await tenantView(this.store, actorId);
    const proposal = await this.open(await this.visible(view, id));
    const address = wallet.toLowerCase();
    const kind = await this.signatures.check(proposal.typedData as unknown as IntentTypedData, address, signature);
    const signer = await this.store.findAdminByWallet(address);
    if (signer === undefined || signer.tenantId !== proposal.tenantId || signer.removedAt !== null || signer.status !== 'ACTIVE') {
      throw new AppError('INTENT_SIGNER_UNKNOWN', `The wallet ${wallet} is no active admin's of this tenant: its intent counts for nobody`);
    }
    if (!proposal.eligibleAdminIds.includes(signer.id)) {
      throw new AppError(
        'INTENT_SIGNER_NOT_ELIGIBLE',
        `Admin ${signer.id} did not hold ${proposal.permission}${proposal.channelId === null ? '' : ' on this channel'} when the proposal was made: ` +
          `only ${proposal.eligibleAdminIds.join(', ')} may approve it`,
      );
    }
    const approved = await this.store.atomically(async (tx) => {
      const added = await tx.addApproval(proposal.id, { adminId: signer.id, wallet: address, signature, kind, approvedAt: this.now() });
      if (!added) {
        throw new AppError(
          'INTENT_ALREADY_GIVEN',
          `Admin ${signer.id} has approved this proposal already: an admin counts once, whichever wallet signs`,
        );
      }
      const withIt = (await tx.getProposal(proposal.tenantId, proposal.id))!;
      await this.record(tx, withIt, 'approve', signer.id);
      return withIt;
    });
    // Read again once committed: an approval that committed meanwhile was invisible inside this
    // transaction, and of approvals that race, the last to commit must see them all to run it.
    await this.settle((await this.store.getProposal(approved.tenantId, approved.id))!);
    return (await this.store.getProposal(proposal.tenantId, proposal.id))!;
  }

  /** The proposer takes its proposal back while it is pending. */
  async withdraw(actorId: string, id: string): Promise<Proposal> {
    const view = await tenantView(this.store, actorId);
    const proposal = await this.open(await this.visible(view, id));
    if (proposal.proposedBy !== view.actor.id) {
      throw new AppError(
        'PROPOSER_ONLY',
        `Only its proposer (${proposal.proposedBy}) withdraws a proposal; others simply do not approve it`,
      );
    }
    const withdrawn = await this.store.atomically(async (tx) => {
      const moved = await tx.moveProposal(proposal.id, 'pending', 'withdrawn', {
        reason: 'withdrawn by its proposer',
        finishedAt: this.now(),
      });
      if (!moved) return undefined;
      const now = (await tx.getProposal(proposal.tenantId, proposal.id))!;
      await this.record(tx, now, 'withdraw', view.actor.id);
      return now;
    });
    if (withdrawn === undefined) throw closed((await this.store.getProposal(proposal.tenantId, proposal.id))!);
    return withdrawn;
  }

  /**
   * Which approvals count now (eligible when it was made, and still active, holding the permission
   * and the channel), and the names of the admins the proposal names (its proposer, its approvers,
   * those who may approve): an approver judges who asks, admins:read or not.
   */
  async standing(proposal: Proposal): Promise<ProposalStanding> {
    return standingAmong(proposal, await this.store.listAdmins(proposal.tenantId));
  }

  /**
   * The proposal as `viewerId` is shown it. A held invitation, once made, has its token in the result
   * until its proposer first reads the proposal, by any request that answers it: that answer shows the
   * token and its link, once, and from then on the store keeps only the token's SHA-256, as it does of
   * every invitation. Anyone else, and the proposer afterwards, sees the hash only.
   */
  async shownTo(proposal: Proposal, viewerId: string): Promise<Proposal> {
    const result = proposal.result;
    if (result !== null && typeof result.secret === 'string') return this.secretShownTo(proposal, result, viewerId);
    if (result === null || typeof result.token !== 'string') return proposal;
    const { token, ...rest } = result;
    const kept = { ...rest, tokenSha256: createHash('sha256').update(token, 'utf8').digest('hex') };
    const once = viewerId === proposal.proposedBy && (await this.store.replaceProposalResult(proposal.id, result, kept));
    const url = new URL(`/console/invite#token=${token}`, this.settings.service).href;
    return { ...proposal, result: once ? { ...kept, token, url } : kept };
  }

  /**
   * A held webhook's creation or secret rotation has the new signing secret in its result, shown as
   * an invitation's token is: to its proposer, once; then the store keeps the result without it
   * (a webhook's secret is kept only sealed, in the webhook's row).
   */
  private async secretShownTo(proposal: Proposal, result: Record<string, unknown>, viewerId: string): Promise<Proposal> {
    const { secret, ...rest } = result;
    const kept = { ...rest, secretShown: true };
    const once = viewerId === proposal.proposedBy && (await this.store.replaceProposalResult(proposal.id, result, kept));
    return { ...proposal, result: once ? { ...kept, secret } : kept };
  }

  /** standing() of a page of one tenant's proposals, its admins read once for all of them. */
  async standingOfEach(proposals: readonly Proposal[]): Promise<ProposalStanding[]> {
    if (proposals.length === 0) return [];
    const admins = await this.store.listAdmins(proposals[0]!.tenantId);
    return proposals.map((proposal) => standingAmong(proposal, admins));
  }

  /** Runs the proposal when its counted intents reach its count; of racing callers, one. */
  private async settle(proposal: Proposal): Promise<void> {
    const { counted } = await this.standing(proposal);
    if (counted.length < proposal.required) return;
    const runner = this.runnerOf(proposal);
    const proposer = await this.store.getAdmin(proposal.proposedBy);
    if (proposer === undefined || proposer.removedAt !== null || proposer.status !== 'ACTIVE') {
      await this.close(proposal, 'pending', 'failed', `its proposer ${proposal.proposedBy} is no longer active: it runs as its proposer`);
      return;
    }
    let current: string;
    try {
      current = await runner.currentEtag(proposal);
    } catch (error) {
      if (!isAppError(error)) throw error;
      await this.close(proposal, 'pending', 'invalidated', `what it acts on changed: ${error.message}`);
      return;
    }
    if (current !== proposal.planEtag) {
      await this.close(
        proposal,
        'pending',
        'invalidated',
        `the plan changed since it was proposed (its ETag was ${proposal.planEtag}, now ${current}): nothing ran; propose it again`,
      );
      return;
    }
    // The run is this instance's while its lease lasts: each step renews it, and one whose process
    // dies is taken over by another instance once it lapses (takeOver).
    const run: RunLease = { proposalId: proposal.id, token: newLeaseToken(), leaseMs: this.runs.leaseMs };
    const fromSeq = (await this.store.files.auditHead(proposal.tenantId)).seq;
    const started = await this.store.moveProposal(proposal.id, 'pending', 'running', {
      run: { leaseToken: run.token, leaseUntil: this.now() + run.leaseMs, fromSeq },
    });
    if (!started) return; // another approval runs it
    await this.execute(proposal, run, counted, () => runner.run(proposal, intentsOf(proposal, counted), run));
  }

  /**
   * Takes over a run whose lease lapsed (its process died, or stopped answering): exactly one
   * instance wins it, then completes it only if nothing it acts on changed since it began except by
   * its own steps (their entries carry its proposal id); otherwise, or after too many takeovers, it
   * is marked failed with the reason. Never running for ever. False when another instance had it.
   */
  async takeOver(tenantId: string, id: string): Promise<boolean> {
    const proposal = await this.store.getProposal(tenantId, id);
    if (proposal === undefined || proposal.status !== 'running') return false;
    const now = this.now();
    if (proposal.run?.leaseUntil != null && proposal.run.leaseUntil >= now) return false;
    const run: RunLease = { proposalId: proposal.id, token: newLeaseToken(), leaseMs: this.runs.leaseMs };
    if (
      !(await this.store.takeOverRun(
        proposal.id,
        proposal.run?.leaseToken ?? null,
        { leaseToken: run.token, leaseUntil: now + run.leaseMs },
        now,
      ))
    ) {
      return false;
    }
    const attempts = (proposal.run?.attempts ?? 0) + 1;
    const fromSeq = proposal.run?.fromSeq ?? null;
    const fail = (reason: string) => this.close(proposal, 'running', 'failed', reason, { code: 'RUN_INTERRUPTED' }, run.token);
    if (fromSeq === null) {
      await fail(
        'it was left running by an earlier release, which kept no record of where its run began: what it did is in the audit log; propose it again',
      );
      return true;
    }
    if (attempts > this.runs.maxAttempts) {
      await fail(`its run was interrupted ${attempts} times: what it did is in the audit log; propose it again`);
      return true;
    }
    const runner = this.runnerOf(proposal);
    const { own, foreign } = await sinceRunBegan(this.store.files, proposal, fromSeq, runner.actsOn(proposal));
    if (foreign !== undefined) {
      const who = foreign.adminId ?? (foreign.operator === null ? 'the service' : `the operator (${foreign.operator})`);
      await fail(
        `its run was interrupted, and what it acts on changed meanwhile by another hand (${foreign.action} by ${who}, entry ${foreign.id}): ` +
          'nothing more was done; what it did is in the audit log',
      );
      return true;
    }
    const counted = (await this.standing(proposal)).counted;
    await this.execute(proposal, run, counted, () => runner.resume(proposal, intentsOf(proposal, counted), run, own));
    return true;
  }

  /** Runs `work` as the proposal's run, then ends the run as it came out, if the run is still this one's. */
  private async execute(proposal: Proposal, run: RunLease, counted: string[], work: () => Promise<Record<string, unknown>>): Promise<void> {
    const intents = intentsOf(proposal, counted);
    let result: Record<string, unknown>;
    try {
      result = await work();
    } catch (error) {
      // Another instance took the run over (this one was too slow): that one ends it.
      if (isAppError(error) && error.code === 'PROPOSAL_RUN_TAKEN_OVER') return;
      if (!isAppError(error) || error.status >= 500) {
        await this.close(
          proposal,
          'running',
          'failed',
          'it failed while running; see the service log',
          { code: 'INTERNAL_ERROR' },
          run.token,
        );
        throw error;
      }
      const changed = error.code === 'PRECONDITION_FAILED';
      await this.close(proposal, 'running', changed ? 'invalidated' : 'failed', error.message, { code: error.code }, run.token);
      return;
    }
    // The end of the run and its entry, in one transaction: only while the run is still this one's.
    await this.store.atomically(async (tx) => {
      if (!(await tx.moveProposal(proposal.id, 'running', 'executed', { result, finishedAt: this.now() }, run.token))) return;
      // The tenant's log keeps the intents with the entry saying what they made run (docs/audit-chain.md).
      await this.record(tx, { ...proposal, status: 'executed', result }, 'execute', proposal.proposedBy, intents);
    });
  }

  private runnerOf(proposal: Proposal): OperationRunner {
    const runner = this.runners.get(proposal.operation);
    if (runner === undefined) throw new AppError('INTERNAL_ERROR', `No runner is registered for ${proposal.operation}`);
    return runner;
  }

  /** Moves the proposal to `to` with its entry, in one transaction; nothing when it is no longer in `from` (or, with `leaseToken`, no longer that run's). */
  private async close(
    proposal: Proposal,
    from: ProposalStatus,
    to: ProposalStatus,
    reason: string,
    result: Record<string, unknown> | null = null,
    leaseToken?: string,
  ) {
    await this.store.atomically(async (tx) => {
      if (await tx.moveProposal(proposal.id, from, to, { reason, result, finishedAt: this.now() }, leaseToken)) {
        await this.record(tx, { ...proposal, status: to, reason }, 'close', null);
      }
    });
  }

  /** Appends a step of the proposal to the tenant's log, in the transaction (`tx`) that makes it. */
  private record(tx: MetadataStore, proposal: Proposal, step: Step, by: string | null, intents?: ProposalIntents): Promise<void> {
    return this.audit.append(tx.files, {
      intents,
      tenantId: proposal.tenantId,
      adminId: by,
      action: `proposal.${step}`,
      channelId: proposal.channelId,
      before: null,
      after: {
        proposalId: proposal.id,
        operation: proposal.operation,
        status: proposal.status,
        reason: proposal.reason,
        summary: proposal.summary,
      },
    });
  }

  /** PROPOSAL_NOT_FOUND for another tenant's proposal, or one on a channel a sub-admin does not hold. */
  private async visible(view: TenantView, id: string): Promise<Proposal> {
    const proposal = await this.store.getProposal(view.actor.tenantId, id);
    const seen =
      proposal !== undefined && (isOwner(view.actor) || proposal.channelId === null || view.actor.channelIds.includes(proposal.channelId));
    if (!seen) throw new AppError('PROPOSAL_NOT_FOUND', `This tenant has no proposal ${id} this admin may see`);
    return proposal;
  }

  /** The proposal if it still takes approvals; PROPOSAL_EXPIRED or PROPOSAL_CLOSED otherwise. */
  private async open(proposal: Proposal): Promise<Proposal> {
    const current = await this.expireIfDue(proposal);
    if (current.status === 'expired') {
      throw new AppError(
        'PROPOSAL_EXPIRED',
        `Proposal ${proposal.id} expired at ${new Date(proposal.expiresAt).toISOString()}; nothing ran`,
      );
    }
    if (current.status !== 'pending') throw closed(current);
    return current;
  }

  /** A pending proposal past its deadline is stored as expired when it is next read. */
  private async expireIfDue(proposal: Proposal): Promise<Proposal> {
    if (proposal.status !== 'pending' || this.now() < proposal.expiresAt) return proposal;
    await this.close(proposal, 'pending', 'expired', 'its deadline passed before enough admins approved it');
    return (await this.store.getProposal(proposal.tenantId, proposal.id))!;
  }
}

const newLeaseToken = (): string => randomBytes(16).toString('hex');

/** The intents that let the proposal run: its approvals that count, with what each signed. */
function intentsOf(proposal: Proposal, counted: readonly string[]): ProposalIntents {
  return {
    proposalId: proposal.id,
    operation: proposal.operation,
    required: proposal.required,
    permission: proposal.permission,
    typedData: proposal.typedData as unknown as ProposalIntents['typedData'],
    approvals: proposal.approvals
      .filter((a) => counted.includes(a.adminId))
      .map(({ adminId, wallet, signature, kind }) => ({ adminId, wallet, signature, kind })),
  };
}

function closed(proposal: Proposal): AppError {
  return new AppError(
    'PROPOSAL_CLOSED',
    `Proposal ${proposal.id} is ${proposal.status}, no longer pending${proposal.reason ? `: ${proposal.reason}` : ''}`,
    {
      status: proposal.status,
    },
  );
}

/** Which approvals count now, and who the admins it names are. */
export interface ProposalStanding {
  counted: string[];
  adminNames: Record<string, string>;
}

function standingAmong(proposal: Proposal, admins: readonly Admin[]): ProposalStanding {
  const able = new Set(eligibleAdmins(admins, proposal.permission, proposal.channelId).map((a) => a.id));
  const counted = [...new Set(proposal.approvals.map((a) => a.adminId))].filter(
    (id) => able.has(id) && proposal.eligibleAdminIds.includes(id),
  );
  const named = new Set([proposal.proposedBy, ...proposal.approvals.map((a) => a.adminId), ...proposal.eligibleAdminIds]);
  const adminNames: Record<string, string> = {};
  for (const admin of admins) if (named.has(admin.id)) adminNames[admin.id] = admin.displayName;
  return { counted, adminNames };
}
