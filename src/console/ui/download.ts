/** Saves a fetched file under its name: the bytes come with the wallet headers, so no plain link can. */
export async function saveResponse(response: Response, filename: string): Promise<void> {
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = filename;
    link.rel = 'noopener';
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The browser has taken the URL once click() returns; a moment later it is safe to release.
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
