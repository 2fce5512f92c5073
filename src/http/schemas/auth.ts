import { Type } from 'typebox';

export const PrincipalSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('ADMIN'),
  displayName: Type.String(),
  tenantId: Type.String({ pattern: '^t_' }),
  ownerAdminId: Type.String({ description: 'Owning admin id, or the literal N/A' }),
  status: Type.String({ description: 'ACTIVE (SUSPENDED admins are refused with 403)' }),
  channelIds: Type.Array(Type.String({ pattern: '^chn_' })),
  effectivePermissions: Type.Array(Type.String()),
  effectiveFeatures: Type.Array(Type.String()),
});

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const AuthTestResponseSchema = Type.Object({
  principal: PrincipalSchema,
  authenticated: Type.Boolean(),
  headers: Type.Object(
    {
      'X-WAL': Type.String(),
      'X-SIG': Type.String(),
      'X-MES': Type.String(),
    },
    { description: 'Each received value cut to its first 20 characters, followed by "..."' },
  ),
  allHeaders: Type.Object(
    {
      'X-WAL': Type.String(),
      'X-SIG': Type.String(),
      'X-MES': Type.String(),
      'X-Wallet-Address': Nullable(Type.String()),
    },
    { description: 'Full values as received; X-Wallet-Address is null when not sent' },
  ),
  walletAddress: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'EIP-55 checksum form' }),
});

export const NonceResponseSchema = Type.Object({
  nonce: Type.String({ pattern: '^[A-Za-z0-9]{8,}$' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

/** X-WAL, X-SIG and X-MES are the wallet security schemes (schemas/security.ts); this is the optional fourth. */
export const WalletHeadersSchema = Type.Object({
  'x-wallet-address': Type.Optional(Type.String({ description: 'Optional; must equal X-WAL when sent' })),
});

export const LogoutQuery = Type.Object({
  all: Type.Optional(
    Type.Enum(['true', 'false'], {
      description:
        'true: end every message this admin has signed, on every instance (log out everywhere); default false: only the presented one',
    }),
  ),
});
