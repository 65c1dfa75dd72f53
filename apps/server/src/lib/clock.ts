/** Time is injected so tests are exact. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
