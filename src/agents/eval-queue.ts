// Whose turn it is to answer an evaluation run (docs/decisions.md "Evaluation runs: one at a time").
// A run answers on the server's event loop (retrieval and the builtin provider are CPU), so a
// process answers at most EVAL_QUEUE.running runs at once, an org at most one; the others wait in
// line inside their request, first come first served, each line bounded. Past a bound the request
// is refused at once with our error shape: 429 for the caller's own runs (one per member, two per
// org in flight), 503 when the process's line is full; both say when to try again.
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { Busy, createKeyedSlots, createSlots } from "../kit/slots.ts";

export const EVAL_QUEUE = {
  /** Runs answering at once in a process, and waiting for one of those slots. */
  running: 2,
  waiting: 6,
  /** Runs of one org: one answering, one waiting behind it. */
  orgRunning: 1,
  orgWaiting: 1,
  /** Runs of one member in flight (answering or waiting). */
  member: 1,
  /** How long a run may wait for its turn before the request gives up (503). */
  waitMs: 5 * 60_000,
  /** Retry-After of a refusal, seconds. */
  retryAfter: 30,
} as const;

export function createEvalQueue(): Deps["evalRuns"] {
  return {
    all: createSlots({ running: EVAL_QUEUE.running, waiting: EVAL_QUEUE.waiting }),
    orgs: createKeyedSlots({ running: EVAL_QUEUE.orgRunning, waiting: EVAL_QUEUE.orgWaiting }),
    members: createKeyedSlots({ running: EVAL_QUEUE.member, waiting: 0 }),
  };
}

export interface Turn {
  /** Runs answering or waiting ahead of this one when it arrived (0: it started at once). */
  ahead: number;
  /** Milliseconds it waited for its turn. */
  waitedMs: number;
  release(): void;
}

const busy = (message: string) =>
  new AppError(503, "busy", message, undefined, { "retry-after": String(EVAL_QUEUE.retryAfter) }, { retryAfter: EVAL_QUEUE.retryAfter });

/** Waits for the run's turn (member, then org, then process); `release` when the run is stored. */
export async function takeTurn(deps: Pick<Deps, "evalRuns" | "timers">, orgId: string, memberId: string | null, signal?: AbortSignal): Promise<Turn> {
  const began = performance.now();
  const bound = deps.timers.deadline(EVAL_QUEUE.waitMs);
  const stop = signal ? AbortSignal.any([bound, signal]) : bound;
  const held: (() => void)[] = [];
  const releaseAll = () => {
    for (const release of held.splice(0).reverse()) release();
  };
  let ahead = 0;
  try {
    if (memberId) {
      const member = await deps.evalRuns.members.acquire(memberId, stop).catch((error) => {
        throw error instanceof Busy
          ? AppError.tooManyRequests(EVAL_QUEUE.retryAfter, "You already have a run answering or waiting; start the next one when it has finished.")
          : error;
      });
      held.push(member.release);
    }
    const org = await deps.evalRuns.orgs.acquire(orgId, stop).catch((error) => {
      throw error instanceof Busy
        ? AppError.tooManyRequests(
            EVAL_QUEUE.retryAfter,
            `This organisation already has ${EVAL_QUEUE.orgRunning + EVAL_QUEUE.orgWaiting} runs answering or waiting; try again when one has finished.`,
          )
        : error;
    });
    held.push(org.release);
    const all = await deps.evalRuns.all.acquire(stop).catch((error) => {
      throw error instanceof Busy ? busy(`The server is answering ${EVAL_QUEUE.running} runs with ${EVAL_QUEUE.waiting} waiting; try again later.`) : error;
    });
    held.push(all.release);
    ahead = org.ahead + all.ahead;
  } catch (error) {
    releaseAll();
    if (bound.aborted && !(error instanceof AppError))
      throw busy(`The run waited ${EVAL_QUEUE.waitMs / 60_000} minutes for other runs to finish; try again later.`);
    throw error;
  }
  return { ahead, waitedMs: Math.round(performance.now() - began), release: releaseAll };
}
