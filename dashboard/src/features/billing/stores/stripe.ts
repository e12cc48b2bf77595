// Stripe.js, loaded once from the URL the server names (`checkout.jsUrl`: Stripe's own, or a
// local stand-in such as localstripe's in tests), and the few of its calls the checkout uses.

/** The card field Stripe.js mounts into the page. */
export interface CardElement {
  mount(el: HTMLElement): void;
  destroy(): void;
}

export interface ConfirmResult {
  error?: { message?: string; code?: string } | null;
  paymentIntent?: { id: string; status: string };
}

export interface StripeJs {
  elements(): { create(type: 'card', options?: Record<string, unknown>): CardElement };
  confirmCardPayment(clientSecret: string, data: { payment_method: { card: CardElement } }): Promise<ConfirmResult>;
}

type StripeFactory = (publishableKey: string) => StripeJs;

let loading: Promise<StripeFactory> | null = null;
let loadedFrom: string | null = null;

function factory(): StripeFactory | undefined {
  return (window as unknown as { Stripe?: StripeFactory }).Stripe;
}

/** Stripe.js from `url` (a script tag, once per URL). */
export function loadStripe(url: string): Promise<StripeFactory> {
  if (loading && loadedFrom === url) return loading;
  loadedFrom = url;
  loading = new Promise<StripeFactory>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url;
    script.async = true;
    script.onload = () => {
      const make = factory();
      if (make) resolve(make);
      else reject(new Error('Stripe.js loaded without a Stripe object'));
    };
    script.onerror = () => reject(new Error('Stripe.js could not be loaded'));
    document.head.appendChild(script);
  });
  // A failed load may be retried.
  loading.catch(() => {
    loading = null;
    loadedFrom = null;
  });
  return loading;
}
