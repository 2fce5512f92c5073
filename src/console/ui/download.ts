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

/** The name a download's Content-Disposition gives (its UTF-8 filename*), or `fallback`. */
export function dispositionName(response: Response, fallback: string): string {
  const header = response.headers.get('content-disposition') ?? '';
  const encoded = /filename\*=UTF-8''([^;\s]+)/i.exec(header)?.[1];
  if (encoded === undefined) return fallback;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return fallback;
  }
}
