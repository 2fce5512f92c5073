/** A filter of a list that takes one of a few values, or any: the audit logs' action and result. */
export function ChoiceFilter({
  label,
  value,
  choices,
  onChange,
}: {
  label: string;
  value: string | undefined;
  choices: readonly string[];
  onChange(event: Event): void;
}) {
  return (
    <label class="field">
      <span>{label}</span>
      <select value={value ?? ''} onChange={onChange}>
        <option value="">Any</option>
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </label>
  );
}
