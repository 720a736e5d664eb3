export interface PageSource<Item, Page> {
  /** Fetches the page at `cursor` (the first page when undefined). */
  fetchPage: (cursor: string | undefined) => Promise<Page>;
  items: (page: Page) => readonly Item[];
  /** The cursor of the page after `page`; null or undefined on the last page. */
  nextCursor: (page: Page) => string | null | undefined;
  /** Where the iteration starts; default the first page. */
  firstCursor?: string | undefined;
}

/**
 * A list that fetches its pages lazily. `for await (const item of list)` yields every item of every
 * page, following `next_cursor` until it is `null`; `pages()` yields whole pages. Nothing is requested
 * until iteration starts, and breaking out of the loop stops fetching.
 */
export class PageIterator<Item, Page> implements AsyncIterable<Item> {
  readonly #source: PageSource<Item, Page>;

  constructor(source: PageSource<Item, Page>) {
    this.#source = source;
  }

  /** Every page in order, each as the API returned it. */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    let cursor = this.#source.firstCursor;
    do {
      const page = await this.#source.fetchPage(cursor);
      yield page;
      cursor = this.#source.nextCursor(page) ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.#source.items(page);
  }
}
