import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { underLimitLocks } from "../db/limits.ts";
import type { ComponentStatus } from "./tables.ts";

/** SQL of the status page: heartbeats, call stats, samples, component states, incidents. */
export function createStatusRepository(db: Db) {
  return {
    /** Forgets the address's status subscription. */
    async forgetAddress(address: string): Promise<void> {
      await db.deleteFrom("status_subscribers").where("email", "=", address).execute();
    },

    async ping(): Promise<void> {
      await sql`SELECT 1`.execute(db);
    },

    async heartbeat(workerId: string, at: Date) {
      await db
        .insertInto("worker_heartbeats")
        .values({ worker_id: workerId, seen_at: at })
        .onConflict((oc) => oc.column("worker_id").doUpdateSet({ seen_at: at }))
        .execute();
    },

    async lastHeartbeat(): Promise<Date | null> {
      const row = await db
        .selectFrom("worker_heartbeats")
        .select((eb) => eb.fn.max("seen_at").as("at"))
        .executeTakeFirst();
      return row?.at ? new Date(row.at) : null;
    },

    async callTotals(since: Date) {
      const rows = await db
        .selectFrom("provider_call_stats")
        .select([
          "provider",
          (eb) => eb.fn.sum<number>("calls").as("calls"),
          (eb) => eb.fn.sum<number>("errors").as("errors"),
        ])
        .where("minute", ">=", since)
        .groupBy("provider")
        .execute();
      return new Map(
        rows.map((r) => [r.provider, { calls: Number(r.calls), errors: Number(r.errors) }]),
      );
    },

    async recordSamples(at: Date, statuses: { component: string; status: ComponentStatus }[]) {
      await db
        .insertInto("status_samples")
        .values(statuses.map((s) => ({ ...s, sampled_at: at })))
        .onConflict((oc) => oc.columns(["component", "sampled_at"]).doNothing())
        .execute();
    },

    /** Per component: samples since `since`, and how many of them were not 'down'. */
    async uptime(since: Date) {
      const rows = await db
        .selectFrom("status_samples")
        .select([
          "component",
          (eb) => eb.fn.countAll<number>().as("total"),
          (eb) => eb.fn.count<number>("status").filterWhere("status", "!=", "down").as("up"),
        ])
        .where("sampled_at", ">=", since)
        .groupBy("component")
        .execute();
      return new Map(rows.map((r) => [r.component, { total: Number(r.total), up: Number(r.up) }]));
    },

    components() {
      return db.selectFrom("status_components").selectAll().execute();
    },

    async saveComponent(row: {
      component: string;
      status: ComponentStatus;
      since: Date;
      checked_at: Date;
    }) {
      await db
        .insertInto("status_components")
        .values(row)
        .onConflict((oc) =>
          oc
            .column("component")
            .doUpdateSet({ status: row.status, since: row.since, checked_at: row.checked_at }),
        )
        .execute();
    },

    openIncident(component: string) {
      return db
        .selectFrom("status_incidents")
        .selectAll()
        .where("component", "=", component)
        .where("resolved_at", "is", null)
        .executeTakeFirst();
    },

    async insertIncident(row: {
      component: string;
      title: string;
      description: string;
      worst_status: "degraded" | "down";
      started_at: Date;
    }) {
      const inserted = await db
        .insertInto("status_incidents")
        .values(row)
        .onConflict((oc) => oc.column("component").where("resolved_at", "is", null).doNothing())
        .returning("id")
        .executeTakeFirst();
      return inserted?.id ?? null;
    },

    async updateIncident(
      id: string,
      update: { worst_status?: "degraded" | "down"; title?: string; resolved_at?: Date },
    ) {
      await db.updateTable("status_incidents").set(update).where("id", "=", id).execute();
    },

    /** Incidents whose subscribers are not yet told that they opened, or that they resolved. */
    untoldIncidents() {
      return db
        .selectFrom("status_incidents")
        .selectAll()
        .where((eb) =>
          eb.or([
            eb("opened_told_at", "is", null),
            eb.and([eb("resolved_at", "is not", null), eb("resolved_told_at", "is", null)]),
          ]),
        )
        .orderBy("started_at")
        .limit(20)
        .execute();
    },

    async markTold(id: string, state: "opened" | "resolved", at: Date) {
      await db
        .updateTable("status_incidents")
        .set(state === "opened" ? { opened_told_at: at } : { resolved_told_at: at })
        .where("id", "=", id)
        .execute();
    },

    recentIncidents(since: Date, limit: number) {
      return db
        .selectFrom("status_incidents")
        .selectAll()
        .where((eb) => eb.or([eb("started_at", ">=", since), eb("resolved_at", "is", null)]))
        .orderBy("started_at", "desc")
        .limit(limit)
        .execute();
    },

    async prune(samplesBefore: Date, statsBefore: Date) {
      await db.deleteFrom("status_samples").where("sampled_at", "<", samplesBefore).execute();
      await db.deleteFrom("provider_call_stats").where("minute", "<", statsBefore).execute();
      await db.deleteFrom("worker_heartbeats").where("seen_at", "<", statsBefore).execute();
      await db
        .deleteFrom("status_confirm_requests")
        .where("created_at", "<", statsBefore)
        .execute();
    },

    /**
     * Subscribes `email` (unconfirmed, with the confirmation token's hash) unless `ip` already
     * sent `max` confirmation links since `since` (`status_confirm_requests`, counted and decided under the address's
     * lock, so a parallel burst sends at most `max`). A confirmed address is left as it is
     * (`send: false`). An unconfirmed one gets a new link when its last is older than
     * `resendAfter` and it had fewer than `perAddressPerDay` links in its current day; a resend
     * counts against the client like a new address (issue 35: before, resends were free and
     * unbounded).
     */
    subscribe(
      s: { email: string; ip: string; now: Date; tokenHash: string },
      limit: { max: number; since: Date; resendAfter: Date; perAddressPerDay: number },
    ): Promise<{ limitedSince: Date } | { send: boolean }> {
      return underLimitLocks(db, [`status-subscribe:ip:${s.ip}`], async (trx) => {
        const known = await trx
          .selectFrom("status_subscribers")
          .select(["email", "confirmed_at", "created_at", "confirm_mails", "confirm_window_start"])
          .where("email", "=", s.email)
          .executeTakeFirst();
        if (known?.confirmed_at) return { send: false };
        if (known && new Date(known.created_at) > limit.resendAfter) return { send: false };
        const dayAgo = new Date(s.now.getTime() - 86_400_000);
        const windowOpen =
          known?.confirm_window_start != null && new Date(known.confirm_window_start) > dayAgo;
        if (known && windowOpen && known.confirm_mails >= limit.perAddressPerDay)
          return { send: false };
        const recent = await trx
          .selectFrom("status_confirm_requests")
          .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
          .where("ip", "=", s.ip)
          .where("created_at", ">", limit.since)
          .executeTakeFirstOrThrow();
        if (Number(recent.n) >= limit.max) {
          return { limitedSince: recent.oldest ? new Date(recent.oldest) : s.now };
        }
        await trx
          .insertInto("status_confirm_requests")
          .values({ ip: s.ip, created_at: s.now })
          .execute();
        if (known) {
          await trx
            .updateTable("status_subscribers")
            .set({
              ip: s.ip,
              created_at: s.now,
              confirm_token_hash: s.tokenHash,
              confirm_mails: windowOpen ? known.confirm_mails + 1 : 1,
              confirm_window_start: windowOpen ? known.confirm_window_start : s.now,
            })
            .where("email", "=", s.email)
            .execute();
          return { send: true };
        }
        await trx
          .insertInto("status_subscribers")
          .values({
            email: s.email,
            ip: s.ip,
            created_at: s.now,
            confirm_token_hash: s.tokenHash,
            confirm_mails: 1,
            confirm_window_start: s.now,
          })
          .onConflict((oc) => oc.column("email").doNothing())
          .execute();
        return { send: true };
      });
    },

    /**
     * Confirms the address whose latest link has this token, sent after `sentAfter` (older
     * links have expired); its e-mail, or undefined.
     */
    async confirm(tokenHash: string, now: Date, sentAfter: Date) {
      const row = await db
        .updateTable("status_subscribers")
        .set({ confirmed_at: now, confirm_token_hash: null })
        .where("confirm_token_hash", "=", tokenHash)
        .where("confirmed_at", "is", null)
        .where("created_at", ">", sentAfter)
        .returning("email")
        .executeTakeFirst();
      return row?.email;
    },

    /** Every confirmed subscriber's address. */
    async confirmedSubscribers(): Promise<string[]> {
      const rows = await db
        .selectFrom("status_subscribers")
        .select("email")
        .where("confirmed_at", "is not", null)
        .orderBy("email")
        .execute();
      return rows.map((r) => r.email);
    },
  };
}

export type StatusRepository = ReturnType<typeof createStatusRepository>;
