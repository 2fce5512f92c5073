import { LIFETIMES } from '../wallet/console-session.ts';

/** How long the signed message is valid, picked before signing it. */
export function LifetimeField({ value, onChange }: { value: number; onChange(seconds: number): void }) {
  return (
    <label class="field">
      <span>Signature valid for</span>
      <select value={String(value)} onChange={(event) => onChange(Number((event.target as HTMLSelectElement).value))}>
        {LIFETIMES.map((option) => (
          <option key={option.seconds} value={String(option.seconds)}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
