import type { ProposalStatus } from '../../client/index.ts';
import { PROPOSAL_STATUSES } from '../../model/approvals.ts';
import type { Command, CommandResult, OptionSpec, OptionValues, RemoteContext } from '../command.ts';
import { optionalString, stringOption, UsageError } from '../command.ts';
import { atMostOneOf } from '../option-checks.ts';
import { pageOptions, pageRequestOf, pageText } from '../paging.ts';
import { proposalDetails, proposalLine, proposalOutcome } from '../remote/proposal-views.ts';
import { exactText, terminalText } from '../terminal-text.ts';

/*
 * Proposals over HTTP (docs/approvals.md, "Proposals"): list and read them, approve one by signing
 * its published typed data (eth_signTypedData_v4) with the keystore's key, or add an intent a wallet
 * the CLI cannot hold signed; the proposer withdraws one.
 */

const idOption: OptionSpec = {
  type: 'string',
  required: true,
  placeholder: 'ID',
  description: 'Proposal id (prp_…), or give it after the command',
};

function statusOption(values: OptionValues): ProposalStatus | undefined {
  const status = optionalString(values, 'status');
  if (status !== undefined && !(PROPOSAL_STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`--status must be one of ${PROPOSAL_STATUSES.join(', ')} (got "${status.slice(0, 80)}")`);
  }
  return status as ProposalStatus | undefined;
}

async function listProposals({ values, client }: RemoteContext): Promise<CommandResult> {
  const status = statusOption(values);
  const page = await (await client()).listProposals({ ...pageRequestOf(values), ...(status === undefined ? {} : { status }) });
  return { json: { ...page }, text: pageText(page.items.map(proposalLine), page, terminalText`No proposals`) };
}

async function showProposal({ values, client }: RemoteContext): Promise<CommandResult> {
  const proposal = await (await client()).getProposal(stringOption(values, 'id'));
  return { json: { ...proposal }, text: proposalDetails(proposal) };
}

async function approveProposal({ values, client, signer }: RemoteContext): Promise<CommandResult> {
  atMostOneOf(values, ['print-typed-data', 'signature'], false);
  const id = stringOption(values, 'id');
  const api = await client();
  const proposal = await api.getProposal(id);
  // The intent names its proposal: a service that answered another one's typed data gets no signature for it.
  if (proposal.id !== id || proposal.typedData.message.proposal !== id) {
    throw new Error(`The service answered the typed data of another proposal than ${id}: nothing was signed`);
  }
  if (values['print-typed-data'] === true) {
    const typedData = JSON.stringify(proposal.typedData);
    return { json: { ...proposal.typedData }, text: exactText(typedData), exact: true };
  }
  const wallet = await signer();
  const given = optionalString(values, 'signature');
  let signature: string;
  if (given !== undefined) signature = given;
  else if (wallet.signTypedData !== undefined) signature = await wallet.signTypedData(proposal.typedData);
  else {
    throw new UsageError(
      `No key here signs typed data: this profile was signed in by another wallet (profile sign-in). Print the proposal's typed data with --print-typed-data, sign it with that wallet (eth_signTypedData_v4), then give --signature 0x…`,
    );
  }
  const address = optionalString(values, 'wallet') ?? (await wallet.getAddress());
  const answered = await api.approveProposalSigned(id, { wallet: address, signature });
  return { json: { ...answered }, text: proposalOutcome('Approved', answered) };
}

async function withdrawProposal({ values, client }: RemoteContext): Promise<CommandResult> {
  const proposal = await (await client()).withdrawProposal(stringOption(values, 'id'));
  return { json: { ...proposal }, text: proposalOutcome('Withdrew', proposal) };
}

export const proposalCommands: Command[] = [
  {
    words: ['proposal', 'list'],
    summary: "The tenant's proposals you may see, newest first",
    options: {
      status: { type: 'string', placeholder: 'STATUS', description: `Only those with this status: ${PROPOSAL_STATUSES.join(', ')}` },
      ...pageOptions,
    },
    remote: listProposals,
  },
  {
    words: ['proposal', 'show'],
    summary: "A proposal: what it will do (summary and plan), its typed data's fields, its approvals and status",
    options: { id: idOption },
    positional: 'id',
    remote: showProposal,
  },
  {
    words: ['proposal', 'approve'],
    summary: "Approve a proposal: sign its typed data (eth_signTypedData_v4) with your keystore's key and add the intent",
    options: {
      id: idOption,
      'print-typed-data': {
        type: 'boolean',
        description: 'Print the exact typed data for another wallet to sign (JSON, as eth_signTypedData_v4 takes it), and add nothing',
      },
      signature: {
        type: 'string',
        placeholder: '0x…',
        description: 'Add this signature of the typed data, made by another wallet, instead of signing here',
      },
      wallet: { type: 'string', placeholder: '0x…', description: 'With --signature: the wallet that signed (default: the one signed in)' },
    },
    positional: 'id',
    remote: approveProposal,
  },
  {
    words: ['proposal', 'withdraw'],
    summary: 'Withdraw a proposal you made: it will never run',
    options: { id: idOption },
    positional: 'id',
    remote: withdrawProposal,
  },
];
