/** How the local stack stops: its parts' clean-up steps, run in reverse order of their start. */

/** Runs clean-up steps in reverse order, every one even when an earlier one fails. */
export class Teardown {
  readonly #steps: Array<() => Promise<void> | void> = [];

  public add(step: () => Promise<void> | void): void {
    this.#steps.push(step);
  }

  public async run(): Promise<void> {
    const errors: unknown[] = [];
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'The local stack did not stop cleanly');
  }
}
