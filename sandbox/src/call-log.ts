const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The Graph calls of the last day, for the usage headers: how many in the last hour (every
 * account: the app's usage) and how many in the last day for one account (its business use
 * case). Calls come in clock order, so both windows slide forward from the front: constant work
 * per call, however many calls there were. A clock set back (the control API) starts afresh.
 */
export class GraphCallLog {
  #calls: { at: number; account: string }[] = [];
  /** Where the last day's calls start in #calls, and the last hour's. */
  #dayStart = 0;
  #hourStart = 0;
  #perAccount = new Map<string, number>();

  /** Records a call at `at` by `account`; answers both windows' counts, this call included. */
  record(at: number, account: string): { hour: number; accountDay: number } {
    const latest = this.#calls.at(-1);
    if (latest && at < latest.at) this.clear();
    this.#calls.push({ at, account });
    this.#perAccount.set(account, (this.#perAccount.get(account) ?? 0) + 1);
    // Each loop stops at the call just recorded at the latest.
    for (
      let c = this.#calls[this.#dayStart]!;
      c.at <= at - DAY_MS;
      c = this.#calls[++this.#dayStart]!
    ) {
      const left = (this.#perAccount.get(c.account) ?? 1) - 1;
      if (left === 0) this.#perAccount.delete(c.account);
      else this.#perAccount.set(c.account, left);
    }
    this.#hourStart = Math.max(this.#hourStart, this.#dayStart);
    while (this.#calls[this.#hourStart]!.at <= at - HOUR_MS) this.#hourStart++;
    // Drop what left the day once it is most of the array.
    if (this.#dayStart > 1024 && this.#dayStart * 2 > this.#calls.length) {
      this.#calls = this.#calls.slice(this.#dayStart);
      this.#hourStart -= this.#dayStart;
      this.#dayStart = 0;
    }
    return {
      hour: this.#calls.length - this.#hourStart,
      accountDay: this.#perAccount.get(account) ?? 0,
    };
  }

  clear(): void {
    this.#calls = [];
    this.#dayStart = 0;
    this.#hourStart = 0;
    this.#perAccount.clear();
  }
}
