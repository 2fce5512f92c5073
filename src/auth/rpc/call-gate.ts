/** Why a call was not let through: too many already waiting, or its deadline passed while it waited. */
export class GateRefusal extends Error {
  constructor(readonly reason: 'busy' | 'timeout') {
    super(reason === 'busy' ? 'too many calls in flight and waiting' : 'the deadline passed while waiting for a turn');
    this.name = 'GateRefusal';
  }
}

interface Waiter {
  admit(release: () => void): void;
  timer: NodeJS.Timeout;
}

/**
 * At most `maxInFlight` calls at once and `maxWaiting` more waiting their turn, first come first
 * served; anything beyond is refused at once. A slow or stalled node then costs callers a quick
 * refusal, and costs the node no more than `maxInFlight` open calls, however many sign-ins arrive.
 */
export class CallGate {
  private inFlight = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly maxInFlight: number,
    private readonly maxWaiting: number,
  ) {}

  /** Resolves with the call's release (call it once the call is over) when the call may start. */
  enter(deadline: number): Promise<() => void> {
    if (this.inFlight < this.maxInFlight) {
      this.inFlight++;
      return Promise.resolve(this.release());
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new GateRefusal('busy'));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: setTimeout(
          () => {
            this.waiting.splice(this.waiting.indexOf(waiter), 1);
            reject(new GateRefusal('timeout'));
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.waiting.push(waiter);
    });
  }

  private release(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, so a call leaving never lets two in.
      const next = this.waiting.shift();
      if (next === undefined) {
        this.inFlight--;
        return;
      }
      clearTimeout(next.timer);
      next.admit(this.release());
    };
  }
}
