/** Longer than this, a name may break anywhere: kept whole, it would push its table off the screen. */
const WHOLE_UP_TO = 60;

/**
 * A file or folder name in a table or list: kept on one line, never broken mid-word by a narrow
 * column (a line may break between folder and file, after the slash); only a very long name wraps.
 */
export function FileName({ name }: { name: string }) {
  return <span class={name.length <= WHOLE_UP_TO ? 'unbroken' : 'wrap'}>{name}</span>;
}

/** folder/file, breakable after the slash only. */
export function FilePath({ folder, filename }: { folder: string; filename: string }) {
  return (
    <>
      <FileName name={`${folder}/`} />
      <wbr />
      <FileName name={filename} />
    </>
  );
}
