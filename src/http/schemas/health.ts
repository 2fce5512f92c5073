import { Type } from 'typebox';

/** The body of /healthz and /readyz: one status word. */
export const StatusSchema = (status: string) => Type.Object({ status: Type.Literal(status) });
