import { createHmac } from "node:crypto";
import type { Ctx } from "../../context.ts";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";
import type { StripeEventRecord, StripeObject } from "../../state.ts";
import { API_VERSION, newId } from "./objects.ts";

const S = SANDBOX_CREDENTIALS.stripe;

/** Stripe events: recorded, then delivered to the webhook URL (signed, retried with backoff). */
export class StripeEvents {
  private readonly timers = new Set<NodeJS.Timeout>();
  readonly ctx: Ctx;
  constructor(ctx: Ctx) {
    this.ctx = ctx;
  }

  get s() {
    return this.ctx.state.stripe;
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  webhookUrl(): string | undefined {
    return this.s.webhookUrl ?? this.ctx.options.stripeWebhookUrl;
  }

  emit(type: string, object: StripeObject, previous?: Record<string, unknown>): StripeEventRecord {
    const event: StripeObject = {
      id: newId("evt"),
      object: "event",
      api_version: API_VERSION,
      created: this.ctx.clock.nowSeconds(),
      data: previous
        ? { object: structuredClone(object), previous_attributes: previous }
        : { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: this.webhookUrl() ? 1 : 0,
      request: { id: newId("req"), idempotency_key: null },
      type,
    };
    const record: StripeEventRecord = { event, deliveries: [], delivered: false };
    this.s.events.push(record);
    this.ctx.changed();
    void this.deliver(record);
    return record;
  }

  async deliver(record: StripeEventRecord): Promise<void> {
    const url = this.webhookUrl();
    if (!url || record.delivered) return;
    const payload = JSON.stringify(record.event, null, 2);
    const t = Math.floor(Date.now() / 1000);
    const sig = createHmac("sha256", S.webhookSecret).update(`${t}.${payload}`).digest("hex");
    let status: number | null = null;
    let error: string | undefined;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          "stripe-signature": `t=${t},v1=${sig}`,
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    record.deliveries.push({ at: this.ctx.now(), status, error });
    if (status !== null && status >= 200 && status < 300) {
      record.delivered = true;
      record.event.pending_webhooks = 0;
    } else if (record.deliveries.length < this.ctx.webhookMaxAttempts) {
      const delay = this.ctx.webhookRetryBaseMs * 2 ** (record.deliveries.length - 1);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.deliver(record);
      }, delay);
      timer.unref();
      this.timers.add(timer);
    }
    this.ctx.changed();
  }
}
