import { hidden, page } from "./pages.ts";
import type { StripeObject } from "./state.ts";
import { escapeHtml as h } from "./util.ts";

const CSS = `
body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Ubuntu,sans-serif;color:#1a1f36;background:#fff;margin:0}
.wrap{display:flex;min-height:100vh;flex-wrap:wrap}
.summary{flex:1;min-width:320px;background:#f6f9fc;padding:64px 48px;border-right:1px solid #e3e8ee}
.pay{flex:1;min-width:320px;padding:64px 48px;max-width:560px}
.back{color:#697386;text-decoration:none;font-size:14px;background:none;border:0;padding:0}
.merchant{font-weight:600;margin:18px 0 8px;color:#3c4257}
.amount{font-size:36px;font-weight:600;margin:6px 0}.per{font-size:14px;color:#697386;font-weight:500}
.line{display:flex;justify-content:space-between;font-size:14px;padding:12px 0;border-bottom:1px solid #e3e8ee}
label{display:block;font-size:13px;color:#3c4257;margin:16px 0 6px;font-weight:500}
input[type=text],input[type=email]{width:100%;border:1px solid #e0e6eb;border-radius:6px;padding:10px 12px;font-size:15px;box-shadow:0 1px 1px rgba(0,0,0,.03)}
.row{display:flex;gap:0}.row input{border-radius:0}.row input:first-child{border-radius:0 0 0 6px}.row input:last-child{border-radius:0 0 6px 0}
.cardnum{border-radius:6px 6px 0 0!important}
.submit{width:100%;margin-top:24px;background:#635bff;color:#fff;border:0;border-radius:6px;padding:13px;font-size:16px;font-weight:600}
.submit:hover{background:#5851ea}.muted{color:#697386;font-size:12px;margin-top:14px}
.error{background:#fff0f0;color:#cd3d64;border-radius:6px;padding:10px 12px;font-size:14px;margin-top:12px}
.notice{background:#eef6ee;color:#1a7f37;border-radius:6px;padding:10px 12px;font-size:14px;margin:12px 0}
.card{border:1px solid #e3e8ee;border-radius:8px;padding:18px 20px;margin:16px 0}
.plans{display:flex;flex-wrap:wrap;gap:8px;margin-top:12px}.plans form{margin:0}
.plan{border:1px solid #e3e8ee;border-radius:6px;background:#fff;padding:8px 12px;font-size:13px}
.plan:hover{border-color:#635bff}.danger{color:#cd3d64;border-color:#f5c2cf}
.badge{display:inline-block;font-size:12px;border-radius:4px;padding:2px 6px;background:#d7f7c2;color:#05690d;margin-left:6px}
.badge.warn{background:#fcedb9;color:#a04100}`;

function money(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}
function per(price: StripeObject): string {
  return (price.recurring as { interval: string }).interval === "year" ? "per year" : "per month";
}

export function checkoutPage(
  opts:
    | { missing: true }
    | { session: StripeObject; price: StripeObject; email: string; error?: string },
): string {
  if ("missing" in opts) {
    return page(
      "Checkout",
      CSS,
      `<div class="pay"><h1>Something went wrong</h1><p>This Checkout Session is no longer active.</p></div>`,
    );
  }
  const { session, price, email } = opts;
  const action = `/checkout.stripe.com/c/pay/${session.id}`;
  return page(
    "Keepsake – Checkout",
    CSS,
    `<div class="wrap"><section class="summary">
<form method="post" action="${h(action)}">${hidden({ decision: "back" })}<button class="back" type="submit">← Keepsake <span style="background:#ffde92;color:#a04100;border-radius:4px;padding:1px 5px;font-size:11px;margin-left:6px">TEST MODE</span></button></form>
<div class="merchant">Subscribe to ${h(String(price.nickname).replace(/^\w/, (c) => c.toUpperCase()))}</div>
<div class="amount">${money(price.unit_amount as number)} <span class="per">${per(price)}</span></div>
<div class="line"><span>Keepsake ${h(String(price.nickname))}</span><span>${money(price.unit_amount as number)}</span></div>
<div class="line"><b>Total due today</b><b>${money(price.unit_amount as number)}</b></div>
</section><section class="pay"><form method="post" action="${h(action)}">${hidden({ decision: "subscribe" })}
<h2 style="font-size:20px;margin:0 0 8px">Pay with card</h2>
<label for="email">Email</label><input id="email" type="email" name="email" value="${h(email)}" ${email ? "readonly" : ""} placeholder="you@example.com">
<label for="card">Card information</label>
<input id="card" class="cardnum" type="text" name="card" value="4242 4242 4242 4242" autocomplete="off">
<div class="row"><input type="text" name="exp" value="12 / 34" aria-label="Expiry"><input type="text" name="cvc" value="123" aria-label="CVC"></div>
<label for="name">Cardholder name</label><input id="name" type="text" name="name" value="Demo Customer">
${opts.error ? `<div class="error" role="alert">${h(opts.error)}</div>` : ""}
<button class="submit" type="submit">Subscribe</button>
<p class="muted">Sandbox: use 4000 0000 0000 0002 to see a declined card. No real payment is made.</p>
</form></section></div>`,
  );
}

export function portalPage(
  opts:
    | { missing: true }
    | {
        session: StripeObject;
        customer: StripeObject;
        subscriptions: StripeObject[];
        prices: StripeObject[];
        notice?: string;
        /** A subscription_update_confirm flow still to confirm. */
        confirm?: { subscription: string; price: StripeObject };
      },
): string {
  if ("missing" in opts) {
    return page(
      "Billing",
      CSS,
      `<div class="pay"><h1>Session expired</h1><p>This billing portal link is no longer valid.</p></div>`,
    );
  }
  const action = `/billing.stripe.com/p/session/${opts.session.id}`;
  const subs = opts.subscriptions
    .map((sub) => {
      const item = (sub.items as { data: Record<string, unknown>[] }).data[0]!;
      const price = item.price as StripeObject;
      const end = new Date((item.current_period_end as number) * 1000).toDateString();
      const status = sub.cancel_at_period_end
        ? `<span class="badge warn">Cancels ${h(end)}</span>`
        : sub.status === "past_due"
          ? `<span class="badge warn">Past due</span>`
          : `<span class="badge">Active</span>`;
      const switches = opts.prices
        .filter((p) => p.id !== price.id)
        .map(
          (p) =>
            `<form method="post" action="${h(action)}">${hidden({ subscription: sub.id, action: "switch", price: p.id })}<button class="plan" type="submit">Switch to ${h(String(p.nickname))} · ${money(p.unit_amount as number)}</button></form>`,
        )
        .join("");
      const cancel = sub.cancel_at_period_end
        ? `<form method="post" action="${h(action)}">${hidden({ subscription: sub.id, action: "renew" })}<button class="plan" type="submit">Renew plan</button></form>`
        : `<form method="post" action="${h(action)}">${hidden({ subscription: sub.id, action: "cancel" })}<button class="plan danger" type="submit">Cancel plan</button></form>`;
      return `<div class="card"><div><b>Keepsake ${h(String(price.nickname))}</b> ${status}</div>
<div class="amount" style="font-size:24px">${money(price.unit_amount as number)} <span class="per">${per(price)}</span></div>
<div class="muted">${sub.cancel_at_period_end ? "Ends" : "Renews"} on ${h(end)}</div>
<div class="plans">${switches}</div><div class="plans">${cancel}
<form method="post" action="${h(action)}">${hidden({ subscription: sub.id, action: "cancel_now" })}<button class="plan danger" type="submit">Cancel immediately (sandbox)</button></form></div></div>`;
    })
    .join("");
  const ret = opts.session.return_url as string | null;
  return page(
    "Keepsake – Billing",
    CSS,
    `<div class="wrap"><section class="summary">${ret ? `<a class="back" href="${h(ret)}">← Return to Keepsake</a>` : ""}
<div class="merchant">Keepsake</div><p class="muted">Billing for ${h(String(opts.customer.email ?? opts.customer.id))}</p>
<span style="background:#ffde92;color:#a04100;border-radius:4px;padding:1px 5px;font-size:11px">TEST MODE</span></section>
<section class="pay"><h2 style="font-size:20px;margin:0">Current plan</h2>
${opts.notice ? `<div class="notice" role="status">${h(opts.notice)}</div>` : ""}
${
  opts.confirm
    ? `<div class="card" data-testid="confirm-update"><h2 style="font-size:18px;margin:0 0 8px">Confirm your new plan</h2>
<div><b>Keepsake ${h(String(opts.confirm.price.nickname))}</b></div>
<div class="amount" style="font-size:24px">${money(opts.confirm.price.unit_amount as number)} <span class="per">${per(opts.confirm.price)}</span></div>
<form method="post" action="${h(action)}">${hidden({ subscription: opts.confirm.subscription, action: "confirm_flow" })}<button class="submit" type="submit">Confirm</button></form></div>`
    : ""
}
${subs || `<p class="muted">No active subscription.</p>`}</section></div>`,
  );
}
