// Reads a PDF's text back through pdfjs-dist (Mozilla's PDF reader), so tests check what a reader sees rather than
// what the renderer meant to draw. Text runs on the same baseline form one line, left to right.

export interface PdfText {
  /** Each page's lines; each line is its text runs, left to right (a table row gives one run per cell line). */
  pages: string[][][];
  /** Every line of every page, its runs joined by a space. */
  lines: string[];
  /** The whole text, one line per row. */
  text: string;
  pageCount: number;
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdfjs takes ownership of (and detaches) the buffer it is given; a copy leaves the caller's bytes intact.
  const loading = pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false });
  const document = await loading.promise;
  const pages: string[][][] = [];
  for (let number = 1; number <= document.numPages; number += 1) {
    const content = await (await document.getPage(number)).getTextContent();
    const runs: Array<{ x: number; y: number; text: string }> = [];
    for (const item of content.items) {
      if (!('str' in item) || item.str.trim() === '') continue;
      runs.push({ x: item.transform[4] as number, y: Math.round(item.transform[5] as number), text: item.str });
    }
    const byLine = new Map<number, Array<{ x: number; text: string }>>();
    for (const run of runs) {
      const key = [...byLine.keys()].find((y) => Math.abs(y - run.y) <= 2) ?? run.y;
      byLine.set(key, [...(byLine.get(key) ?? []), run]);
    }
    pages.push(
      [...byLine.entries()]
        .sort(([a], [b]) => b - a)
        .map(([, line]) => line.sort((a, b) => a.x - b.x).map((run) => run.text)),
    );
  }
  await loading.destroy();
  const lines = pages.flatMap((page) => page.map((line) => line.join(' ')));
  return { pages, lines, text: lines.join('\n'), pageCount: pages.length };
}
