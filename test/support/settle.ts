// Bun's `expect(promise).rejects` and `.resolves` wait for the promise without delivering worker
// messages meanwhile (seen on Bun 1.4.4): a promise that the embedded database's thread settles —
// any statement on PGlite — never settles under them, and the test hangs until its timeout. So the
// tests await the promise first and expect on what it gave (test/house/settle.test.ts keeps it so).

/** The error `promise` rejects with; throws if it resolves instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the promise to reject, and it resolved");
}
