/**
 * A value that is known only once start-up has gone further, wanted as a promise before that: the
 * URL agents call back on is known once the server listens (OFFICE_PORT=0 picks the port then), and
 * sessions may be launched while the actors boot, before it does.
 */
export class Later<T> {
  private resolve: ((value: T) => void) | null = null;
  /** Resolves with the value once it is known. */
  readonly promise = new Promise<T>((resolve) => { this.resolve = resolve; });

  /** The value, now known; a value given again later changes nothing. */
  known(value: T): void {
    this.resolve?.(value);
    this.resolve = null;
  }
}
