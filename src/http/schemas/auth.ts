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

export const WalletHeadersSchema = Type.Object({
  'x-wal': Type.Optional(Type.String({ description: 'Wallet address, 0x + 40 hex' })),
  'x-sig': Type.Optional(Type.String({ description: '65-byte personal_sign signature, 0x + 130 hex' })),
  'x-mes': Type.Optional(
    Type.String({ description: 'Signed message: as is when header-safe, else "base64:" + base64 of its UTF-8 bytes' }),
  ),
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
