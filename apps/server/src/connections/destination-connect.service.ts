import {
  DESTINATION_KINDS,
  DESTINATION_LABELS,
  type DestinationInfo,
  type DestinationKind,
  connectionMessages as m,
  type S3DestinationRequest,
} from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { encryptSecret } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { asError } from "../lib/log.ts";
import type { DropboxClient } from "../providers/dropbox/dropbox.client.ts";
import type { DropboxOAuthClient } from "../providers/dropbox/dropbox-oauth.client.ts";
import { connectFailureWords } from "../providers/failure-words.ts";
import type { MicrosoftAccount } from "../providers/microsoft/microsoft-account.ts";
import type { MicrosoftOAuthClient } from "../providers/microsoft/microsoft-oauth.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import type { S3Settings } from "../providers/s3/s3.client.ts";
import { checkS3Settings } from "../providers/s3/s3-config.ts";
import { endpointAddressProblem } from "../providers/s3/s3-endpoint.ts";
import { ConnectionError } from "./connection-error.ts";
import { type ConnectionsLog, expiresAt } from "./connection-rules.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import type {
  ConnectedKind,
  DestinationConnectionsRepository,
} from "./destination-connections.repository.ts";
import type { AccountChosen } from "./destination-state.ts";
import type { CallbackParams } from "./oauth.service.ts";
import type { OAuthStates } from "./oauth-state.ts";
import { probeS3, s3Label } from "./s3-probe.ts";

export type OAuthDestination = "dropbox" | "onedrive";

export interface DestinationConnectDeps {
  repo: DestinationConnectionsRepository;
  /** Google Drive's row, for the list. */
  google: Pick<ConnectionsRepository, "findGoogleConnection">;
  states: OAuthStates;
  clock: Clock;
  encryptionKey: Buffer;
  /** Keepsake's public origin: redirect URIs are `${appUrl}/api/oauth/<kind>/callback`. */
  appUrl: string;
  dropboxOAuth: Pick<DropboxOAuthClient, "configured" | "authUrl" | "exchangeCode">;
  dropbox: Pick<DropboxClient, "account">;
  microsoft: Pick<MicrosoftOAuthClient, "configured" | "authUrl" | "exchangeCode">;
  /** Graph `/me` with a token just granted. */
  microsoftAccount: (accessToken: string) => Promise<MicrosoftAccount>;
  /** S3's "Test connection" (s3-probe.ts; a 400 AppError naming what failed). */
  probe?: (settings: S3Settings) => Promise<void>;
  /**
   * S3 endpoints only at public addresses (`S3_PRIVATE_ENDPOINTS` unset in live mode): one on
   * Keepsake's own network is refused before any request.
   */
  s3PublicOnly?: boolean;
  /** A destination was connected (or reconnected). Must not fail the connection. */
  onConnected?: (userId: string, kind: ConnectedKind) => Promise<unknown>;
  /** Told, inside the transaction storing a connection, which account it is (and which was). */
  onAccountChosen?: AccountChosen;
  log?: ConnectionsLog;
}

const label = (kind: DestinationKind) => DESTINATION_LABELS[kind];

/** The user's S3 form as the settings Keepsake stores: the prefix ends with one slash. */
export function s3SettingsOf(body: S3DestinationRequest): S3Settings {
  const prefix = (body.prefix ?? "").trim().replace(/\/+$/, "");
  const settings: S3Settings = {
    endpoint: body.endpoint.trim().replace(/\/+$/, ""),
    region: body.region.trim(),
    bucket: body.bucket.trim(),
    prefix: prefix ? `${prefix}/` : "",
    accessKeyId: body.access_key_id.trim(),
    secretAccessKey: body.secret_access_key,
    forcePathStyle: true,
  };
  const wrong = checkS3Settings(settings);
  if (wrong) throw new AppError("bad_request", wrong);
  return settings;
}

/**
 * Connecting the destinations other than Drive: Dropbox and OneDrive through OAuth (Dropbox
 * with PKCE), S3-compatible storage by a tested form; and the list Settings shows.
 */
export function createDestinationConnect(deps: DestinationConnectDeps) {
  const { repo, states, clock } = deps;
  const seal = (value: string) => encryptSecret(deps.encryptionKey, value);
  const probe = deps.probe ?? probeS3;
  /** The form's settings, checked; the endpoint's address too when only public ones may be used. */
  async function usableS3Settings(body: S3DestinationRequest): Promise<S3Settings> {
    const settings = s3SettingsOf(body);
    const problem = deps.s3PublicOnly ? await endpointAddressProblem(settings.endpoint) : null;
    if (problem)
      throw new AppError("bad_request", `${problem}: enter the storage's public endpoint`);
    return settings;
  }
  const redirectUri = (kind: OAuthDestination) => `${deps.appUrl}/api/oauth/${kind}/callback`;

  async function connected(userId: string, kind: ConnectedKind) {
    try {
      await deps.onConnected?.(userId, kind);
    } catch (err) {
      deps.log?.warn({ userId, kind, err: asError(err) }, "after connecting a destination");
    }
  }

  function ensureConfigured(kind: OAuthDestination) {
    const client = kind === "dropbox" ? deps.dropboxOAuth : deps.microsoft;
    if (!client.configured) throw new AppError("unavailable", m.notConfigured(label(kind)));
  }

  /** The state of a callback, used up; the user's cancel or a bad state is a ConnectionError. */
  async function begin(kind: OAuthDestination, p: CallbackParams) {
    if (p.error) {
      if (p.state) await states.consume(p.state, kind).catch(() => undefined);
      throw new ConnectionError(
        "bad_request",
        "access_denied",
        `${label(kind)} was not connected: the authorization was cancelled.`,
      );
    }
    if (!p.code || !p.state)
      throw new ConnectionError("bad_request", "invalid_state", m.stateInvalid);
    const state = await states.consume(p.state, kind);
    return { code: p.code, userId: state.user_id, stateId: state.id };
  }

  function failure(err: unknown, kind: OAuthDestination): never {
    if (err instanceof AppError) throw err;
    if (err instanceof ProviderError) {
      const { refused, message } = connectFailureWords(err, label(kind));
      throw new ConnectionError(refused ? "bad_request" : "upstream", "provider_error", message);
    }
    throw err;
  }

  const noRefresh = (kind: OAuthDestination) =>
    new ConnectionError(
      "upstream",
      "provider_error",
      `${label(kind)} did not grant offline access. Please connect ${label(kind)} again.`,
    );

  return {
    async startDropbox(userId: string) {
      ensureConfigured("dropbox");
      const state = await states.issue(userId, "dropbox");
      const { url } = deps.dropboxOAuth.authUrl({
        redirectUri: redirectUri("dropbox"),
        state,
        codeVerifier: states.codeVerifier(state),
      });
      return { authorization_url: url };
    },

    async startOneDrive(userId: string) {
      ensureConfigured("onedrive");
      const state = await states.issue(userId, "onedrive");
      return {
        authorization_url: deps.microsoft.authUrl({ redirectUri: redirectUri("onedrive"), state }),
      };
    },

    /** Dropbox's callback: the code (with the state's PKCE verifier) for a refresh token. */
    async completeDropbox(p: CallbackParams): Promise<string> {
      const { code, userId, stateId } = await begin("dropbox", p);
      try {
        const t = await deps.dropboxOAuth.exchangeCode({
          code,
          redirectUri: redirectUri("dropbox"),
          codeVerifier: states.codeVerifier(stateId),
        });
        if (!t.refreshToken) throw noRefresh("dropbox");
        const account = await deps.dropbox.account(t.accessToken);
        const now = clock.now();
        await repo.upsert(
          {
            user_id: userId,
            kind: "dropbox",
            external_id: account.accountId,
            label: account.email,
            credentials_encrypted: seal(t.refreshToken),
            access_token_encrypted: seal(t.accessToken),
            access_token_expires_at: expiresAt(now, t.expiresIn ?? 4 * 3600),
          },
          now,
          deps.onAccountChosen,
        );
        await connected(userId, "dropbox");
        return "/settings?destination=dropbox&status=connected";
      } catch (err) {
        return failure(err, "dropbox");
      }
    },

    /** OneDrive's callback: the code for a refresh token, the account's address from Graph. */
    async completeOneDrive(p: CallbackParams): Promise<string> {
      const { code, userId } = await begin("onedrive", p);
      try {
        const t = await deps.microsoft.exchangeCode({ code, redirectUri: redirectUri("onedrive") });
        if (!t.refreshToken) throw noRefresh("onedrive");
        const me = await deps.microsoftAccount(t.accessToken);
        const now = clock.now();
        await repo.upsert(
          {
            user_id: userId,
            kind: "onedrive",
            external_id: me.id,
            label: me.email,
            credentials_encrypted: seal(t.refreshToken),
            access_token_encrypted: seal(t.accessToken),
            access_token_expires_at: expiresAt(now, t.expiresIn ?? 3600),
          },
          now,
          deps.onAccountChosen,
        );
        await connected(userId, "onedrive");
        return "/settings?destination=onedrive&status=connected";
      } catch (err) {
        return failure(err, "onedrive");
      }
    },

    /** "Test connection": the probe object written, read back and deleted; nothing stored. */
    async testS3(body: S3DestinationRequest) {
      const settings = await usableS3Settings(body);
      await probe(settings);
      return {
        ok: true as const,
        message: `Keepsake wrote, read back and deleted a test object in ${s3Label(settings)}.`,
      };
    },

    /** Tested the same way, then saved (sealed whole: the secret never leaves custody). */
    async saveS3(userId: string, body: S3DestinationRequest): Promise<DestinationInfo> {
      const settings = await usableS3Settings(body);
      await probe(settings);
      const now = clock.now();
      const row = await repo.upsert(
        {
          user_id: userId,
          kind: "s3",
          // Where the objects go: another bucket, or another prefix in it, is another place.
          external_id: `${settings.endpoint}/${settings.bucket}${settings.prefix ? `/${settings.prefix}` : ""}`,
          label: s3Label(settings),
          credentials_encrypted: seal(JSON.stringify(settings)),
          access_token_encrypted: null,
          access_token_expires_at: null,
        },
        now,
        deps.onAccountChosen,
      );
      await connected(userId, "s3");
      const using = await repo.accountsUsing(userId);
      return {
        kind: "s3",
        label: label("s3"),
        connected: true,
        account: row.label,
        needs_reconnect: false,
        status_reason: null,
        accounts_using: using.s3 ?? 0,
      };
    },

    /** Every destination, connected or not, with how many accounts are backed up there. */
    async list(userId: string): Promise<{ destinations: DestinationInfo[] }> {
      const [google, rows, using] = await Promise.all([
        deps.google.findGoogleConnection(userId),
        repo.list(userId),
        repo.accountsUsing(userId),
      ]);
      const stored = (kind: DestinationKind) => {
        if (kind === "google_drive") {
          return google
            ? { label: google.google_email, status: google.status, reason: google.status_reason }
            : undefined;
        }
        const r = rows.find((c) => c.kind === kind);
        return r ? { label: r.label, status: r.status, reason: r.status_reason } : undefined;
      };
      return {
        destinations: DESTINATION_KINDS.map((kind) => {
          const s = stored(kind);
          const needs = s?.status === "needs_reconnection";
          return {
            kind,
            label: label(kind),
            connected: Boolean(s),
            account: s ? s.label : null,
            needs_reconnect: needs,
            status_reason: needs ? (s?.reason ?? null) : null,
            accounts_using: using[kind] ?? 0,
          };
        }),
      };
    },
  };
}

export type DestinationConnect = ReturnType<typeof createDestinationConnect>;
