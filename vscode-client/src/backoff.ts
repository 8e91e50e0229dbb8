/**
 * Restart policy after a server crash: exponential back-off, and giving up
 * after too many crashes in a short window. Pure; time is passed in.
 */

export interface BackoffOptions {
  /** Delay before the first restart, in ms. */
  initialDelayMs: number;
  /** Upper bound of any delay, in ms. */
  maxDelayMs: number;
  /** Crashes allowed within {@link windowMs} before giving up. */
  maxCrashes: number;
  /** Sliding window in which crashes are counted, in ms. */
  windowMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxCrashes: 5,
  windowMs: 3 * 60_000,
};

export class RestartBackoff {
  private crashes: number[] = [];

  constructor(private readonly options: BackoffOptions = DEFAULT_BACKOFF) {}

  /**
   * Records a crash at time `now` and returns how long to wait before
   * restarting, or undefined when the server crashed too often and should
   * stay stopped.
   */
  onCrash(now: number): number | undefined {
    this.crashes = this.crashes.filter((t) => now - t < this.options.windowMs);
    this.crashes.push(now);
    const n = this.crashes.length;
    if (n > this.options.maxCrashes) {
      return undefined;
    }
    const delay = this.options.initialDelayMs * 2 ** (n - 1);
    return Math.min(delay, this.options.maxDelayMs);
  }

  /** Crashes counted in the current window. */
  get recentCrashes(): number {
    return this.crashes.length;
  }

  /** Forgets past crashes (after a manual restart). */
  reset(): void {
    this.crashes = [];
  }
}
