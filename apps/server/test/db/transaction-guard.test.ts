import { SANDBOX_CREDENTIALS } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../src/db/transaction.ts";
import { CallInTransactionError, insideTransaction } from "../../src/lib/transaction-scope.ts";
import { createSmtpSender } from "../../src/mail/smtp.ts";
import { createGoogleOAuthClient } from "../../src/providers/google/google-oauth.client.ts";
import { sendStream } from "../../src/providers/http.ts";
import { ProviderError } from "../../src/providers/provider-error.ts";
import { createStripeClient, guardedHttpClient } from "../../src/providers/stripe/stripe.client.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

/**
 * No provider is called inside a database transaction: the provider HTTP layer, the Stripe
 * client and the SMTP sender refuse while the caller's async context holds one (started by
 * `inTransaction`, the only way the server starts one: `npm run check:cycles` refuses others).
 */

let t: SandboxedApp;

beforeAll(async () => {
  t = await createSandboxedApp();
});
afterAll(async () => {
  await t?.close();
});

/** Every call the sandbox's providers received so far (its SMTP server not included). */
const sandboxCalls = async (): Promise<number> => {
  const res = await fetch(`${t.sandbox.url}/_control/calls`);
  const { calls } = (await res.json()) as { calls: Record<string, number> };
  return Object.values(calls).reduce((a, b) => a + b, 0);
};

const inbox = async (to: string): Promise<unknown[]> => {
  const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
  return (await res.json()) as unknown[];
};

const google = () => createGoogleOAuthClient(t.ctx.config.providers.google);

/** What `fn` threw inside a transaction, after checking the sandbox saw no call. */
async function refusedInside(fn: () => Promise<unknown>): Promise<CallInTransactionError> {
  const before = await sandboxCalls();
  const err = await inTransaction(t.ctx.db, async (trx) => {
    // The transaction is real and open.
    await trx.selectFrom("users").select("id").limit(1).execute();
    expect(insideTransaction()).toBe(true);
    return fn().then(
      () => null,
      (e: unknown) => e,
    );
  });
  expect(await sandboxCalls()).toBe(before);
  expect(err).toBeInstanceOf(CallInTransactionError);
  return err as CallInTransactionError;
}

describe("a provider call inside a transaction is refused", () => {
  it("the provider HTTP layer (Google's userinfo through requestJson)", async () => {
    const err = await refusedInside(() => google().userinfo("some-access-token"));
    expect(err.message).toMatch(
      /^Google GET .*\/userinfo was called inside a database transaction/,
    );
    // The query string (a token could be there) is never named.
    expect(err.message).not.toContain("some-access-token");
    // The same call outside a transaction reaches the sandbox (which refuses the token).
    const before = await sandboxCalls();
    await expect(google().userinfo("some-access-token")).rejects.toBeInstanceOf(ProviderError);
    expect(await sandboxCalls()).toBe(before + 1);
  });

  it("streamed uploads (sendStream, Drive's uploads)", async () => {
    const url = new URL(
      `${t.sandbox.url}/www.googleapis.com/upload/drive/v3/files?uploadType=media`,
    );
    const upload = () =>
      sendStream(
        url,
        { method: "POST", headers: {}, body: [new Uint8Array([1, 2, 3])], timeoutMs: 5000 },
        { provider: "google", label: "Google Drive" },
      );
    const err = await refusedInside(upload);
    expect(err.call).toBe(`Google Drive POST ${url.host}/www.googleapis.com/upload/drive/v3/files`);
    const before = await sandboxCalls();
    const res = await upload();
    await res.arrayBuffer();
    expect(await sandboxCalls()).toBe(before + 1);
  });

  it("Stripe, through the official client", async () => {
    const stripe = createStripeClient({
      secretKey: SANDBOX_CREDENTIALS.stripe.secretKey,
      apiUrl: t.sandbox.url,
    });
    const err = await refusedInside(() => stripe.openSubscriptions("cus_missing"));
    expect(err.call).toBe("Stripe subscriptions.list");
    await refusedInside(() =>
      stripe.createCustomer({ email: "guard@example.com", name: null, userId: "u-guard" }),
    );
    // Outside: the call is made.
    const before = await sandboxCalls();
    expect(await stripe.openSubscriptions("cus_missing")).toEqual([]);
    expect(await sandboxCalls()).toBe(before + 1);
  });

  it("Stripe's HTTP client itself (every page of a list, every retry)", async () => {
    const { default: Stripe } = await import("stripe");
    const http = guardedHttpClient(Stripe.createNodeHttpClient());
    const origin = new URL(t.sandbox.url);
    const request = () =>
      http.makeRequest(
        origin.hostname,
        origin.port,
        "/v1/customers?limit=1",
        "GET",
        { Authorization: `Bearer ${SANDBOX_CREDENTIALS.stripe.secretKey}` },
        "",
        "http",
        5000,
      );
    const err = await refusedInside(request);
    expect(err.call).toBe("Stripe GET /v1/customers");
    const before = await sandboxCalls();
    const res = await request();
    expect(res.getStatusCode()).toBe(200);
    await res.toJSON();
    expect(await sandboxCalls()).toBe(before + 1);
  });

  it("SMTP: nothing is sent, not even the connection made", async () => {
    const smtp = createSmtpSender({ url: t.sandbox.urls.smtp, timeoutMs: 5000 });
    const to = `guard-${Date.now()}@example.com`;
    const mail = {
      from: "Keepsake <no-reply@keepsake.app>",
      to,
      subject: "Guarded",
      text: "text",
      html: "<p>text</p>",
      messageId: `<guard-${Date.now()}@keepsake.test>`,
      headers: {},
    };
    let handedOver = 0;
    const beforeData = async () => {
      handedOver++;
    };
    const err = await refusedInside(() => smtp.send(mail, beforeData));
    expect(err.call).toBe("SMTP send");
    expect(handedOver).toBe(0);
    expect(await inbox(to)).toHaveLength(0);
    await smtp.send(mail, beforeData);
    expect(handedOver).toBe(1);
    expect(await inbox(to)).toHaveLength(1);
  });
});

describe("the mark belongs to the transaction's own async context", () => {
  it("a call made elsewhere meanwhile is not refused", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tx = inTransaction(t.ctx.db, async () => {
      await held;
    });
    // Another request's work, while the transaction above is open.
    expect(insideTransaction()).toBe(false);
    await expect(google().userinfo("other-token")).rejects.toBeInstanceOf(ProviderError);
    release();
    await tx;
  });

  it("work started inside and still running after the commit may call out", async () => {
    let committed = () => {};
    const afterCommit = new Promise<void>((resolve) => {
      committed = resolve;
    });
    let later: Promise<unknown> = Promise.resolve();
    await inTransaction(t.ctx.db, async () => {
      later = afterCommit.then(() =>
        google()
          .userinfo("later-token")
          .catch((e: unknown) => e),
      );
    });
    committed();
    const outcome = await later;
    expect(outcome).toBeInstanceOf(ProviderError);
    expect(outcome).not.toBeInstanceOf(CallInTransactionError);
  });

  it("a failed transaction rolls back and ends the mark", async () => {
    await expect(
      inTransaction(t.ctx.db, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(insideTransaction()).toBe(false);
  });
});
