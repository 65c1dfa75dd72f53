/** The sandbox clock: real time plus an offset that tests can advance. */
export class Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
  set(epochMs: number): void {
    this.offsetMs = epochMs - Date.now();
  }
}
