import type { Permission } from '../../client/index.ts';
import { ALL_PERMISSIONS } from '../../model/permissions.ts';
import { type OptionValues, optionalString, UsageError } from '../command.ts';

export function isPermission(value: string): value is Permission {
  return (ALL_PERMISSIONS as readonly string[]).includes(value);
}

/** A --permission value checked here, so that a misspelt one names the option rather than the API's field. */
function checked(value: string): Permission {
  if (!isPermission(value)) {
    throw new UsageError(`--permission must be one of ${ALL_PERMISSIONS.join(', ')} (got "${value.slice(0, 80)}")`);
  }
  return value;
}

/** Every --permission given (repeatable). */
export function permissionsOption(values: OptionValues): Permission[] {
  return ((values.permission as string[] | undefined) ?? []).map(checked);
}

/** The one --permission given, if any. */
export function permissionOption(values: OptionValues): Permission | undefined {
  const value = optionalString(values, 'permission');
  return value === undefined ? undefined : checked(value);
}
