/**
 * How the OpenAPI document tells a caller to sign in. A wallet signs in with three headers at
 * once, and an apiKey scheme names one header: three schemes, required together in one
 * security requirement (all of an object's schemes apply; the array's objects are alternatives).
 */
export const SECURITY_SCHEMES = {
  walletAddress: { type: 'apiKey', in: 'header', name: 'X-WAL', description: 'The wallet address, 0x + 40 hex digits, any letter case' },
  walletSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SIG',
    description: "The wallet's personal_sign (EIP-191) signature of X-MES: 0x + 130 hex digits",
  },
  walletMessage: {
    type: 'apiKey',
    in: 'header',
    name: 'X-MES',
    description:
      'The signed Sign-In with Ethereum (EIP-4361) message: as is when header-safe, else "base64:" + the base64 of its UTF-8 bytes ' +
      '(always so for SIWE, which has newlines). `wallet-admin sign` prints all three headers.',
  },
} as const;

/** An operation that needs a signed-in admin. */
export const WALLET_SECURITY = [{ walletAddress: [], walletSignature: [], walletMessage: [] }];

/** An operation anyone may call. */
export const NO_SECURITY = [];

/** A download: a signed-in admin, or anyone holding a signed link (?expires&signature). */
export const WALLET_OR_SIGNED_LINK_SECURITY = [...WALLET_SECURITY, {}];
