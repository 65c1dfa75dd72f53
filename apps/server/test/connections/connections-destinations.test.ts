import { DEMO_DROPBOX, DEMO_IG, DEMO_ONEDRIVE } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import type { LostDestination } from "../../src/connections/index.ts";
import type { DestinationCredentials } from "../../src/destinations/destination.ts";
import { decryptSecret } from "../../src/lib/crypto.ts";
import { AppError } from "../../src/lib/errors.ts";
import { connectFirstWords, reconnectWords } from "../../src/providers/failure-words.ts";
import { connectionsSuite, params } from "../support/connections.ts";
import { control } from "../support/destinations.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

/** Connecting Dropbox and OneDrive through their consent screens, their tokens, disconnecting. */
const suite = connectionsSuite();
let t: SandboxedApp;
const lost: LostDestination[] = [];
beforeAll(() => {
  t = suite.app();
  t.ctx.connections.events.destinationNeedsReconnection.on(async (l) => {
    lost.push(l);
  });
});

// What the destinations' adapters are given (checked by the compiler).
const custody = (): DestinationCredentials & typeof t.ctx.connections.destinations.custody =>
  t.ctx.connections.destinations.custody;

/** Starts the flow, answers the consent page as a browser would, lands on Keepsake's callback. */
async function connect(
  token: string,
  kind: "dropbox" | "onedrive",
  fields: Record<string, string>,
) {
  const res = await t.call("GET", `/api/oauth/${kind}/auth-url`, { token });
  expect(res.status).toBe(200);
  const consentPage = new URL(res.body.authorization_url);
  // The consent form posts its hidden fields (the query it was opened with) and the choice.
  const submitted = await fetch(`${consentPage.origin}${consentPage.pathname}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...params(consentPage), ...fields }).toString(),
    redirect: "manual",
  });
  expect(submitted.status).toBe(302);
  return {
    authUrl: consentPage,
    landed: await t.land(new URL(submitted.headers.get("location")!)),
  };
}

async function destinations(token: string) {
  const res = await t.call("GET", "/api/destinations", { token });
  expect(res.status).toBe(200);
  return res.body.destinations as {
    kind: string;
    connected: boolean;
    account: string | null;
    needs_reconnect: boolean;
    status_reason: string | null;
    accounts_using: number;
  }[];
}

const row = (userId: string, kind: string) =>
  t.ctx.db
    .selectFrom("destination_connections")
    .selectAll()
    .where("user_id", "=", userId)
    .where("kind", "=", kind as "dropbox")
    .executeTakeFirst();

const rawRow = async (userId: string) =>
  (
    await t.ctx.pool.query(
      "SELECT row_to_json(d)::text AS json FROM destination_connections d WHERE user_id = $1",
      [userId],
    )
  ).rows
    .map((r) => r.json as string)
    .join("\n");

async function dropboxEmailOf(accessToken: string) {
  const res = await fetch(`${t.sandbox.url}/api.dropboxapi.com/2/users/get_current_account`, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return { status: res.status, body: (await res.json()) as { email?: string } };
}

/** The AppError a call throws (the test fails when it does not throw one). */
async function appErrorOf(run: () => Promise<unknown>): Promise<AppError> {
  const err = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe("connecting Dropbox", () => {
  it("through its consent screen (PKCE, offline): listed with the e-mail, tokens sealed", async () => {
    const { token, user } = await t.signUp();
    const { authUrl, landed } = await connect(token, "dropbox", {
      decision: "allow",
      account: DEMO_DROPBOX.jordan.accountId,
    });
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl.searchParams.get("token_access_type")).toBe("offline");
    expect(landed.pathname).toBe("/settings");
    expect(params(landed)).toEqual({ destination: "dropbox", status: "connected" });

    const list = await destinations(token);
    expect(list.map((d) => d.kind)).toEqual(["google_drive", "dropbox", "onedrive", "s3"]);
    expect(list.find((d) => d.kind === "dropbox")).toEqual({
      kind: "dropbox",
      label: "Dropbox",
      connected: true,
      account: DEMO_DROPBOX.jordan.email,
      needs_reconnect: false,
      status_reason: null,
      accounts_using: 0,
    });
    expect(list.find((d) => d.kind === "google_drive")?.connected).toBe(false);

    // Sealed at rest: neither token appears in the row, nor in any answer.
    const stored = (await row(user.id, "dropbox"))!;
    expect(stored.external_id).toBe(DEMO_DROPBOX.jordan.accountId);
    const refresh = decryptSecret(t.ctx.secrets.encryptionKey, stored.credentials_encrypted);
    const access = await custody().accessToken(user.id, "dropbox");
    const raw = await rawRow(user.id);
    for (const secret of [refresh, access]) {
      expect(raw).not.toContain(secret);
      expect(JSON.stringify(list)).not.toContain(secret);
    }
    expect((await dropboxEmailOf(access)).body.email).toBe(DEMO_DROPBOX.jordan.email);
  });

  it("refreshes the access token when it ends, or when asked after Dropbox refused it", async () => {
    const { token, user } = await t.signUp();
    await connect(token, "dropbox", { decision: "allow", account: DEMO_DROPBOX.maya.accountId });
    const first = await custody().accessToken(user.id, "dropbox");
    expect(await custody().accessToken(user.id, "dropbox")).toBe(first);

    // Keepsake's clock passes the 4 hours: a new token from the refresh token.
    t.clock.advance(4 * 3600_000);
    const second = await custody().accessToken(user.id, "dropbox");
    expect(second).not.toBe(first);
    expect((await dropboxEmailOf(second)).body.email).toBe(DEMO_DROPBOX.maya.email);

    // Dropbox ends the token early: the adapter's caller asks again with forceRefresh.
    await control(t.sandbox, "tokens/expire", { token: second });
    expect((await dropboxEmailOf(second)).status).toBe(401);
    const third = await custody().accessToken(user.id, "dropbox", { forceRefresh: true });
    expect(third).not.toBe(second);
    expect((await dropboxEmailOf(third)).status).toBe(200);
  });

  it("a revoked grant needs reconnecting, with the reason, and is reported once", async () => {
    const { token, user } = await t.signUp();
    await connect(token, "dropbox", { decision: "allow", account: DEMO_DROPBOX.jordan.accountId });
    await control(t.sandbox, "tokens/revoke", { dropbox_email: DEMO_DROPBOX.jordan.email });
    const reported = lost.length;

    const err = await appErrorOf(() =>
      custody().accessToken(user.id, "dropbox", { forceRefresh: true }),
    );
    expect(err.message).toBe(reconnectWords.dropbox);
    const entry = (await destinations(token)).find((d) => d.kind === "dropbox");
    expect(entry).toMatchObject({
      connected: true,
      needs_reconnect: true,
      status_reason: reconnectWords.dropbox,
    });
    expect(lost.slice(reported)).toEqual([
      expect.objectContaining({
        kind: "dropbox",
        userId: user.id,
        label: DEMO_DROPBOX.jordan.email,
        reason: reconnectWords.dropbox,
      }),
    ]);
    // Asked again, it says the same without calling Dropbox, and reports nothing new.
    expect((await appErrorOf(() => custody().accessToken(user.id, "dropbox"))).message).toBe(
      reconnectWords.dropbox,
    );
    expect(lost.length).toBe(reported + 1);

    // Reconnecting makes it usable again.
    await connect(token, "dropbox", { decision: "allow", account: DEMO_DROPBOX.jordan.accountId });
    expect((await destinations(token)).find((d) => d.kind === "dropbox")?.needs_reconnect).toBe(
      false,
    );
    const fresh = await custody().accessToken(user.id, "dropbox");
    expect((await dropboxEmailOf(fresh)).status).toBe(200);
  });

  it("cancelled at Dropbox: back to Settings with the error, nothing stored", async () => {
    const { token, user } = await t.signUp();
    const { landed } = await connect(token, "dropbox", { decision: "cancel" });
    expect(params(landed)).toMatchObject({ destination: "dropbox", error_type: "access_denied" });
    expect(landed.searchParams.get("error")).toMatch(/Dropbox was not connected/);
    expect(await row(user.id, "dropbox")).toBeUndefined();
  });

  it("a forged state is refused", async () => {
    const landed = await t.land(
      new URL("http://keepsake.test/api/oauth/dropbox/callback?code=x&state=s1.nope.sig"),
    );
    expect(params(landed)).toMatchObject({ error_type: "invalid_state" });
  });

  it("counts the Instagram accounts backed up to each destination", async () => {
    const { token, user } = await t.signUp();
    await t.connectInstagram(token, DEMO_IG.business.id);
    await connect(token, "dropbox", { decision: "allow", account: DEMO_DROPBOX.jordan.accountId });
    let list = await destinations(token);
    expect(list.find((d) => d.kind === "google_drive")?.accounts_using).toBe(1);
    expect(list.find((d) => d.kind === "dropbox")?.accounts_using).toBe(0);
    // The per-account switch is the lead's route; the column is set behind its back here.
    await t.ctx.db
      .updateTable("instagram_accounts")
      .set({ destination: "dropbox" })
      .where("user_id", "=", user.id)
      .execute();
    list = await destinations(token);
    expect(list.find((d) => d.kind === "google_drive")?.accounts_using).toBe(0);
    expect(list.find((d) => d.kind === "dropbox")?.accounts_using).toBe(1);
  });

  it("disconnecting revokes the grant at Dropbox and forgets it", async () => {
    const { token, user } = await t.signUp();
    await connect(token, "dropbox", { decision: "allow", account: DEMO_DROPBOX.maya.accountId });
    const access = await custody().accessToken(user.id, "dropbox");
    const res = await t.call("DELETE", "/api/destinations/dropbox", { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ disconnected: 1, revoked: true });
    expect(res.body.message).toMatch(/Files already in your Dropbox stay there/);
    expect((await dropboxEmailOf(access)).status).toBe(401);
    expect(await row(user.id, "dropbox")).toBeUndefined();
    expect((await destinations(token)).find((d) => d.kind === "dropbox")).toMatchObject({
      connected: false,
      account: null,
    });
    expect((await appErrorOf(() => custody().accessToken(user.id, "dropbox"))).message).toBe(
      connectFirstWords.dropbox,
    );
    const again = await t.call("DELETE", "/api/destinations/dropbox", { token });
    expect(again.status).toBe(404);
    expect(again.body.detail).toMatch(/not connected/);
  });

  it("unknown kinds answer 404 with a detail", async () => {
    const { token } = await t.signUp();
    const res = await t.call("DELETE", "/api/destinations/box", { token });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/Unknown destination/);
    expect((await t.call("GET", "/api/destinations")).status).toBe(401);
  });
});

describe("connecting OneDrive", () => {
  it("through Microsoft's consent screen: listed with the e-mail, refreshed, disconnected", async () => {
    const { token, user } = await t.signUp();
    const { authUrl, landed } = await connect(token, "onedrive", {
      decision: "allow",
      account: DEMO_ONEDRIVE.jordan.id,
    });
    expect(authUrl.searchParams.get("scope")).toBe(
      "Files.ReadWrite.AppFolder offline_access User.Read",
    );
    expect(params(landed)).toEqual({ destination: "onedrive", status: "connected" });
    expect((await destinations(token)).find((d) => d.kind === "onedrive")).toMatchObject({
      connected: true,
      account: DEMO_ONEDRIVE.jordan.email,
      needs_reconnect: false,
    });
    const before = (await row(user.id, "onedrive"))!;
    expect(before.external_id).toBe(DEMO_ONEDRIVE.jordan.id);

    // Microsoft rotates refresh tokens: each refresh keeps the new one, and it works next time.
    const first = await custody().accessToken(user.id, "onedrive");
    t.clock.advance(3600_000);
    const second = await custody().accessToken(user.id, "onedrive");
    const after = (await row(user.id, "onedrive"))!;
    expect(second).not.toBe(first);
    expect(after.credentials_encrypted).not.toBe(before.credentials_encrypted);
    const third = await custody().accessToken(user.id, "onedrive", { forceRefresh: true });
    const me = await fetch(`${t.sandbox.url}/graph.microsoft.com/v1.0/me`, {
      headers: { authorization: `Bearer ${third}` },
    });
    expect(((await me.json()) as { mail: string }).mail).toBe(DEMO_ONEDRIVE.jordan.email);
    const raw = await rawRow(user.id);
    const refresh = decryptSecret(t.ctx.secrets.encryptionKey, after.credentials_encrypted);
    for (const secret of [first, second, third, refresh]) expect(raw).not.toContain(secret);

    const res = await t.call("DELETE", "/api/destinations/onedrive", { token });
    expect(res.body).toMatchObject({ disconnected: 1, revoked: false });
    expect(await row(user.id, "onedrive")).toBeUndefined();
  });

  it("a refused refresh needs reconnecting, with the reason", async () => {
    const { token, user } = await t.signUp();
    await connect(token, "onedrive", { decision: "allow", account: DEMO_ONEDRIVE.camille.id });
    await control(t.sandbox, "tokens/revoke", { microsoft_email: DEMO_ONEDRIVE.camille.email });
    const err = await appErrorOf(() =>
      custody().accessToken(user.id, "onedrive", { forceRefresh: true }),
    );
    expect(err.message).toBe(reconnectWords.onedrive);
    expect((await destinations(token)).find((d) => d.kind === "onedrive")).toMatchObject({
      needs_reconnect: true,
      status_reason: reconnectWords.onedrive,
    });
    expect(lost.at(-1)).toMatchObject({ kind: "onedrive", label: DEMO_ONEDRIVE.camille.email });
  });
});
