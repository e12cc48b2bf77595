// A real, stateful local Stripe for the billing tests: localstripe (PyPI) through
// scripts/localstripe-server.py (loopback, a free port, in-memory state, plus the parts of
// Stripe's subscription flow localstripe lacks; see that file). Started once per test file, with
// the two Pro prices, and stopped with the test process. Its webhooks are signed with
// WEBHOOK_SECRET and POSTed to each server registered with `deliverTo`.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { repo } from "./parley.mjs";

export const SECRET_KEY = "sk_test_parley";
export const PUBLISHABLE_KEY = "pk_test_parley";
export const WEBHOOK_SECRET = "whsec_parley_localstripe";
export const MONTHLY = "price_pro_monthly";
export const YEARLY = "price_pro_yearly";
/** Stripe's test cards: one that pays, one whose charges are declined. */
export const CARD_OK = "4242424242424242";
export const CARD_DECLINED = "4000000000000341";

export async function startLocalStripe() {
  const child = spawn("python3", [join(repo, "scripts", "localstripe-server.py"), "0"], { stdio: ["ignore", "pipe", "inherit"] });
  process.once("exit", () => child.kill());
  // Neither the process nor its output pipe may keep the test file running once its tests end
  // (`stop()` ends it; the exit handler covers a failed suite).
  child.unref();
  child.stdout.unref();
  const base = await new Promise((resolveBase, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("localstripe did not start: pip install localstripe (scripts/test-env.sh does)")), 30000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/localstripe listening on (http:\/\/[\d.]+:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolveBase(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`localstripe exited with ${code}`)));
  });

  async function call(method, path, form) {
    const res = await fetch(`${base}/v1/${path}`, {
      method,
      headers: { authorization: `Bearer ${SECRET_KEY}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  }
  async function must(method, path, form) {
    const r = await call(method, path, form);
    if (r.status !== 200) throw new Error(`${method} /v1/${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  await must("POST", "products", { id: "prod_parley_pro", name: "Parley Pro", type: "service" });
  // localstripe has no Price object: prices are Plans (a plan id works as a price id at Stripe).
  await must("POST", "plans", { id: MONTHLY, product: "prod_parley_pro", amount: "2900", currency: "usd", interval: "month" });
  await must("POST", "plans", { id: YEARLY, product: "prod_parley_pro", amount: "27840", currency: "usd", interval: "year" });

  return {
    base,
    /** Ends localstripe. */
    stop() {
      child.kill();
    },
    /** The server's settings pointing here. */
    env: {
      PARLEY_STRIPE_SECRET_KEY: SECRET_KEY,
      PARLEY_STRIPE_PUBLISHABLE_KEY: PUBLISHABLE_KEY,
      PARLEY_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PARLEY_STRIPE_API_BASE: base,
      PARLEY_STRIPE_JS_URL: `${base}/js.stripe.com/v3/`,
      PARLEY_STRIPE_PRICE_PRO_MONTHLY: MONTHLY,
      PARLEY_STRIPE_PRICE_PRO_YEARLY: YEARLY,
    },
    /** Sends every event, signed, to `url` too (localstripe's /_config/webhooks/{id}). */
    async deliverTo(id, url) {
      const res = await fetch(`${base}/_config/webhooks/${id}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ url, secret: WEBHOOK_SECRET }).toString(),
      });
      if (!res.ok) throw new Error(`webhook registration: ${res.status}`);
    },
    get: (path) => must("GET", path),
    /**
     * A renewal whose card is declined: the customer's default card becomes a declining one and
     * the subscription's next invoice is made and paid (localstripe has no clock to advance).
     * Stripe answers 402 and sends invoice.payment_failed.
     */
    async failRenewal(customer, subscription) {
      const pm = await must("POST", "payment_methods", { type: "card", "card[number]": CARD_DECLINED, "card[exp_month]": "12", "card[exp_year]": "2034", "card[cvc]": "123" });
      await must("POST", `payment_methods/${pm.id}/attach`, { customer });
      await must("POST", `customers/${customer}`, { "invoice_settings[default_payment_method]": pm.id });
      const invoice = await must("POST", "invoices", { customer, subscription });
      const paid = await call("POST", `invoices/${invoice.id}/pay`, {});
      if (paid.status !== 402) throw new Error(`the renewal was not declined: ${paid.status} ${JSON.stringify(paid.body)}`);
    },
    /** The customer localstripe holds for `email`, and its subscription that is not cancelled. */
    async customerOf(email) {
      const list = await must("GET", `customers?email=${encodeURIComponent(email)}`);
      const customer = list.data[0];
      const subs = await must("GET", `subscriptions?customer=${customer.id}`);
      return { customer: customer.id, subscription: subs.data[0]?.id };
    },
  };
}
