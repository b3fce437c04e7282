// The AppError a piece of work fails with; the test fails if it succeeds or fails otherwise.
import { expect } from "bun:test";
import { AppError } from "../../src/errors.ts";

export async function appErrorOf(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
