#!/usr/bin/env python3
"""localstripe (PyPI, 1.15.10) for Parley's tests: on 127.0.0.1 only, state in memory only, with
the few parts of Stripe's current subscription flow it lacks filled in, in Stripe's documented
shapes. Everything else (customers, payment intents, charges, card declines, invoices, signed
webhooks) is localstripe's own.

What localstripe 1.15.10 lacks, and what this adds:
  1. `payment_behavior=default_incomplete` (it accepts only allow_incomplete and
     error_if_incomplete, and charges the customer's default card at once): the subscription
     starts `incomplete` with its first invoice open and a payment intent waiting for a payment
     method, as Stripe does.
  2. Prices: it has only Plans (Stripe's older name for the same object; a plan's id works as a
     price id in Stripe). `items[N][price]` is read as `items[N][plan]`.
  3. Confirming a payment intent with the card the visitor typed (`payment_method_data`) from
     the browser with the publishable key and the client secret, which Stripe.js's
     `confirmCardPayment(secret, {payment_method: {card}})` does; its Stripe.js stand-in only
     runs 3-D Secure on an intent that already has a card. The stand-in gets that call.
  4. Events: `invoice.paid` (Stripe sends it with `invoice.payment_succeeded`),
     `customer.subscription.updated` (after an update), and `invoice.payment_failed` when paying
     an invoice (`POST /v1/invoices/{id}/pay`, how the tests stand in for a renewal) fails.

Usage: localstripe-server.py [PORT]   (0 or none: a free port; prints
"localstripe listening on http://127.0.0.1:PORT" once it listens)
"""

import asyncio
import re
import sys

from aiohttp import web

import localstripe.resources as r
from localstripe.errors import UserError
from localstripe.webhooks import schedule_webhook

# State lives in this process only: localstripe pickles to /tmp/localstripe.pickle, which
# parallel test runs would share.
r.Store.dump_to_disk = lambda self: None
r.Store.try_load_from_disk = lambda self: None

# 1 and 2: default_incomplete and prices.
_default_incomplete = [False]
_subscription_init = r.Subscription.__init__


def subscription_init(self, customer=None, items=None, payment_behavior='allow_incomplete', payment_settings=None, **kwargs):
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict) and 'price' in item:
                item['plan'] = item.pop('price')
    incomplete = payment_behavior == 'default_incomplete'
    _default_incomplete[0] = incomplete
    try:
        _subscription_init(self, customer=customer, items=items,
                           payment_behavior='allow_incomplete' if incomplete else payment_behavior, **kwargs)
    finally:
        _default_incomplete[0] = False
    self.payment_settings = payment_settings or {}
    self.default_payment_method = None


_create_invoice = r.Subscription._create_invoice


def create_invoice(self):
    if not _default_incomplete[0]:
        return _create_invoice(self)
    invoice = r.Invoice(customer=self.customer, subscription=self.id, items=list(self.items._list),
                        date=self.current_period_start)
    invoice._finalize()
    if invoice.total <= 0:
        invoice._on_payment_success()
        return
    pi = r.PaymentIntent(amount=invoice.total, currency=invoice.currency, customer=self.customer)
    pi.invoice = invoice.id
    invoice.payment_intent = pi.id


r.Subscription.__init__ = subscription_init
r.Subscription._create_invoice = create_invoice

# 4: customer.subscription.updated after an update.
_subscription_update = r.Subscription._update


def subscription_update(self, **data):
    _subscription_update(self, **data)
    schedule_webhook(r.Event('customer.subscription.updated', self))


r.Subscription._update = subscription_update

# 4: invoice.paid beside invoice.payment_succeeded; the card that paid a subscription's first
# invoice becomes its default (save_default_payment_method=on_subscription).
_invoice_paid = r.Invoice._on_payment_success


def invoice_paid(self):
    _invoice_paid(self)
    schedule_webhook(r.Event('invoice.paid', self))
    if self.subscription and self.payment_intent:
        sub = r.Subscription._api_retrieve(self.subscription)
        pi = r.PaymentIntent._api_retrieve(self.payment_intent)
        if getattr(sub, 'default_payment_method', None) is None:
            sub.default_payment_method = pi.payment_method


r.Invoice._on_payment_success = invoice_paid

# 4: paying an invoice whose charge is declined answers 402 and sends invoice.payment_failed
# (localstripe passes a no-op as the failure handler and says nothing).
_pay_invoice = r.Invoice._api_pay_invoice.__func__


def pay_invoice(cls, id):
    invoice = _pay_invoice(cls, id)
    charge = invoice.charge
    if charge is not None and charge.status == 'failed':
        invoice._on_payment_failure_now()
        raise UserError(402, charge.failure_message, {'code': charge.failure_code, 'charge': charge.id})
    return invoice


r.Invoice._api_pay_invoice = classmethod(pay_invoice)

# 3: confirm with payment_method_data and the client secret.
_confirm = r.PaymentIntent._api_confirm.__func__


def confirm(cls, id, payment_method=None, payment_method_data=None, client_secret=None, key=None, **kwargs):
    pi = cls._api_retrieve(id)
    if key is not None and client_secret != pi.client_secret:
        # The publishable key may confirm only with the intent's own secret, as at Stripe.
        raise UserError(401, 'Unauthorized')
    if payment_method_data is not None:
        payment_method = r.PaymentMethod(**payment_method_data).id
    if payment_method is not None:
        pm = r.PaymentMethod._api_retrieve(payment_method)
        pm.customer = pm.customer or pi.customer
        pi.payment_method = pm.id
        # After a declined card the intent takes another (Stripe: requires_payment_method ->
        # requires_confirmation); localstripe would keep reading the failed charge's status.
        if pi.latest_charge is not None and pi.latest_charge.status == 'failed':
            pi.latest_charge = None
    return _confirm(cls, id, **kwargs)


r.PaymentIntent._api_confirm = classmethod(confirm)
# The routes of these calls were listed with the original functions when localstripe loaded.
PATCHED = {'/v1/payment_intents/{id}/confirm': r.PaymentIntent._api_confirm, '/v1/invoices/{id}/pay': r.Invoice._api_pay_invoice}
r.extra_apis[:] = [(m, u, PATCHED.get(u, f)) for (m, u, f) in r.extra_apis]
assert sum(1 for (_, u, _) in r.extra_apis if u in PATCHED) == len(PATCHED), 'localstripe routes moved'

import localstripe.server as server  # noqa: E402  (routes are made from the patched tables)

_get_api_key = server.get_api_key
CONFIRM = re.compile(r'^/v1/payment_intents/pi_\w+/confirm$')


def get_api_key(request):
    # The browser confirms with its publishable key in the query (a simple request, no CORS
    # preflight); the secret is checked by `confirm`.
    key = request.query.get('key', '')
    if request.method == 'POST' and CONFIRM.match(request.path) and key.startswith('pk_'):
        return key
    return _get_api_key(request)


server.get_api_key = get_api_key

STAND_IN = r'''
// Parley's tests: confirmCardPayment(secret, {payment_method: {card: element}}) sends the typed
// card, as Stripe.js does (localstripe's stand-in only runs 3-D Secure).
(function () {
  const make = Stripe;
  Stripe = (apiKey) => {
    const stripe = make(apiKey);
    const threeDSecure = stripe.confirmCardPayment;
    stripe.confirmCardPayment = async (clientSecret, data) => {
      const card = data && data.payment_method && data.payment_method.card;
      if (!card || !card.value) return threeDSecure(clientSecret, data);
      const pi = clientSecret.match(/^(pi_\w+)_secret_/)[1];
      const url = `${LOCALSTRIPE_BASE_API}/v1/payment_intents/${pi}/confirm?key=${encodeURIComponent(apiKey)}`;
      try {
        const response = await fetch(url, {
          method: 'POST',
          body: JSON.stringify({
            client_secret: clientSecret,
            payment_method_data: {type: 'card', card: card.value.card, billing_details: data.payment_method.billing_details || {}},
          }),
        });
        const body = await response.json().catch(() => ({}));
        if (response.status !== 200 || body.error) return {error: body.error || {message: `HTTP ${response.status}`}};
        if (body.status === 'requires_action') return threeDSecure(clientSecret, data);
        return {paymentIntent: body};
      } catch (err) {
        return {error: {message: String(err)}};
      }
    };
    return stripe;
  };
})();
'''


async def stripe_js(request):
    original = server.localstripe_js(request).text
    return web.Response(text=original + STAND_IN, content_type='application/javascript')


for route in server.app.router.routes():
    if route.resource is not None and route.resource.canonical == '/js.stripe.com/v3/' and route.method == 'GET':
        route._handler = stripe_js


async def serve(port):
    runner = web.AppRunner(server.app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, '127.0.0.1', port)
    await site.start()
    bound = site._server.sockets[0].getsockname()[1]
    print(f'localstripe listening on http://127.0.0.1:{bound}', flush=True)
    await asyncio.Event().wait()


if __name__ == '__main__':
    asyncio.run(serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
